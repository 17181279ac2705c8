// A warm sandbox's start (process/warm_pool.h): Python and torch imported
// before the candidate is known, the hand-off that brings the rest of the
// command line and the candidate's descriptors (wire/handoff.h), and the
// return to normal priority after warming under SCHED_IDLE.
//
// All of it runs before confinement and before any candidate code, in the
// sandbox's one thread. Failure ends the process (Die): the worker sees a
// sandbox that did not start.
#pragma once

#include "sandbox/command_line.h"
#include "sandbox/zygote.h"

namespace hone::sandbox {

// A warm sandbox's head start: the embedded Python the compat shim would
// start, with torch imported (python/hone_compat.py's hone_compat_prewarm),
// before any candidate code exists. Only hone's and torch's own code runs
// here, unconfined; confinement follows the hand-off as for any sandbox.
// Landlock and the network namespace bind the thread that applies them and
// its later children, so a thread started now would escape them: any thread
// but this one and the CUDA driver's fails the start. The driver's (named
// "cuda...") run driver code only, and hone-sandbox-cuda starts them before
// confinement in any case (sandbox/cuda/cuda_sandbox.cc's Init creates the context then).
// numpy's OpenBLAS would start a pool at import: CompatEnvironment sizes it
// to one thread.
// `python`: the interpreter started, for a zygote's forks.
void Prewarm(const Options& o, EmbeddedPython& python);

// Every thread back to normal priority after warming under SCHED_IDLE (the
// CUDA driver's threads inherited it): the candidate is timed as any other.
void LeaveIdlePriority();

// Reads the rest of the command line and the descriptors from the worker
// (wire/handoff.h) and lowers the memory limits to the candidate's.
void ReceiveHandoff(Options& o);

}  // namespace hone::sandbox
