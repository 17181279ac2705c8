// verify/compare.h's checks over device memory, so the worker compares on
// the GPU and only a summary per thread block comes back to the host.
//
// Every pointer is device memory of the calling thread's current device;
// work is ordered on `stream` (a cudaStream_t) and each function returns
// once its result is on the host. A CUDA error is returned as a Status.
// Results match the host functions exactly, except that float sums
// (RelativeL2ErrorOnDevice) are added in another order.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/status.h"
#include "task/task.h"
#include "verify/compare.h"

namespace hone {

Result<Mismatch> CompareElementsOnDevice(const void* actual, const void* expected, Dtype t,
                                         int64_t n, const Tolerance& tol, void* stream);

Result<double> RelativeL2ErrorOnDevice(const void* a, Dtype t, const double* ref, int64_t n,
                                       void* stream);

// Elements whose bytes differ, and the first such index (-1: none).
Result<int64_t> CountDifferentElementsOnDevice(const void* a, const void* b, Dtype t, int64_t n,
                                               int64_t* first, void* stream);

// Widens n elements of a floating dtype to float64; asynchronous on `stream`.
Status WidenToDoubleOnDevice(const void* src, Dtype from, double* dst, int64_t n, void* stream);

}  // namespace hone
