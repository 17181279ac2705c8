// Keyed fingerprints of byte ranges of device memory, at memory bandwidth,
// for the stray-write watch over a CUDA arena (process/stray_writes.h).
//
// Each 8-byte word (and each byte of a range's unaligned ends) is mixed with
// its position and `key`, and the mixes of a range are summed: any change of
// a word changes the sum except with probability about 2^-64, and without
// `key` a candidate cannot choose writes that cancel. Not a cryptographic
// MAC; the key is what keeps a candidate from aiming at it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "process/arena.h"

namespace hone {

// `base` is device memory of the current device; the ranges are offsets
// into it. Runs on `stream` (a cudaStream_t) and waits for it; a CUDA error
// is returned as a Status.
Status FingerprintOnDevice(const void* base, const std::vector<ArenaRange>& ranges, uint64_t key,
                           void* stream, std::vector<uint64_t>* out);

}  // namespace hone
