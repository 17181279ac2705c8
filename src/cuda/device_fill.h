// Input generation on the GPU: the trusted worker draws a value set straight
// into its own device memory with task/sampler.h, the same chunked streams
// as the host's FillFromSampler, instead of generating on the host and
// uploading. `dst` is device memory of the current device; asynchronous on
// `stream` (a cudaStream_t); a launch error is returned as a Status.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/status.h"
#include "task/sampler.h"

namespace hone {

Status FillOnDevice(void* dst, Dtype t, int64_t n, const SamplerSpec& spec, uint64_t seed,
                    uint64_t rng_stream, void* stream);

// dst = src * factor for n elements of a floating dtype (rounded to the
// dtype like StoreFromDouble); src and dst may be the same buffer.
Status ScaleOnDevice(const void* src, void* dst, Dtype t, int64_t n, double factor, void* stream);

}  // namespace hone
