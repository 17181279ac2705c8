// How the trusted process's allocator treats large buffers.
//
// An evaluation allocates and frees buffers of megabytes to hundreds of
// megabytes again and again (inputs drawn per case, float64 reference
// outputs, copies compared against the candidate's). glibc serves those
// from fresh mmap()s and trims its heap after frees, so every case pays the
// page faults of memory it had a moment ago: about half of a CPU
// evaluation's system time on a virtual machine, where a fault is dear
// (docs/PERFORMANCE.md, "Page faults"). Keeping freed memory for reuse
// halves the faults and takes a third off a verification's time.
//
// The price: the process keeps up to about kKeptBytes of freed memory
// mapped between evaluations (a worker's resident size stays near its
// largest evaluation's). Buffers above the threshold are still mapped and
// unmapped on their own. Call once, early in main, before threads start;
// never in the sandbox, whose allocator is the candidate's business.
#pragma once

namespace hone {

void KeepFreedMemoryForReuse();

}  // namespace hone
