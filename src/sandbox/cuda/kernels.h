// hone-sandbox-cuda's own kernels around a timed call. Both are enqueued on
// the candidate's stream before its start event; launch errors surface at
// the call's event synchronisation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hone::sandbox {

// Holds the stream until *release becomes nonzero (host memory mapped into
// the device), so that the flush, the start event and every launch of the
// candidate are queued before the GPU reaches them: the measured time then
// excludes the host's launch latency. Gives up after timeout_ns and sets
// *timed_out, so a candidate that waits on the GPU inside hone_forward
// cannot deadlock the call.
void LaunchHold(const volatile int* release, int* timed_out, uint64_t timeout_ns, void* stream);

// Evicts the L2 by reading `bytes` (twice its size) of `buffer`. Reading
// leaves clean lines behind, so the timed kernel does not pay for writing
// back the flush's own data, as it would after a memset.
void LaunchReadFlush(const void* buffer, size_t bytes, int* sink, void* stream);

}  // namespace hone::sandbox
