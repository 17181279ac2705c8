// What /proc says about a live process, read by the worker about a sandbox
// it started (process/sandbox_process.h): its threads' CPU time and states,
// its resident memory. The sandbox cannot forge any of it.
//
// Reads /proc only; any thread. Failure: what cannot be read counts as 0
// (a process gone, a pid <= 0).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace hone {

// CPU time all the process's threads have used (schedstat).
uint64_t ThreadsCpuNanos(pid_t pid);

// ThreadsCpuNanos once the main thread has left the CPU, waiting at most
// until it has run a millisecond more or 20 ms have passed
// (SandboxProcess::SettledCpuNanos says why).
uint64_t SettledThreadsCpuNanos(pid_t pid);

// Threads other than the main one that are running or runnable now (state
// R).
int RunnableThreadsBesidesMain(pid_t pid);

// Resident memory of a live process, from /proc (0 when unknown).
size_t ResidentBytes(pid_t pid);

}  // namespace hone
