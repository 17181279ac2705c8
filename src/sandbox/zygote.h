// A zygote: a warm sandbox (process/warm_pool.h) that, once Python and torch
// are imported, forks warm sandboxes on request instead of taking a
// candidate itself. Importing torch is most of a compat sandbox's start
// (1.3-1.7 s of CPU on a 2-core VM, about 5 s on an H100 host); a forked
// child has it for about 25 ms (bench/torch_fork_probe.py).
//
// Each request, on the zygote's hand-off socket (wire/handoff.h), carries
// the child's scratch folder and its four descriptors: control in, control
// out, log (stdout and stderr) and its own hand-off socket. The child is
// created with CLONE_PARENT, so it is the worker's child as a spawned
// sandbox is: the worker waits for, signals and reaps it the same way. It
// puts itself in a process group of its own, dies with its parent thread
// (PR_SET_PDEATHSIG), moves the descriptors to the numbers the zygote had,
// and renames the zygote's scratch folder to its own wherever Python's
// environment holds it (python/hone_compat.py's hone_compat_after_fork).
// The zygote replies "pid N" or "error WHY" on its socket and serves the
// next request; it exits when the worker closes the socket.
//
// Only hone's and torch's code has run in a zygote, unconfined, in one
// thread; a request that finds another thread is refused, since a fork
// copies one thread and whatever locks the others held, and so is one that
// finds the CUDA driver initialised. On a GPU machine importing
// torch.utils.cpp_extension starts it (seen on an H200, torch 2.11), so hone
// asks for zygotes on the CPU backend only (run/sandbox_launcher.cc).
// Confinement (Landlock, seccomp, the namespaces, the user) is each child's
// own, after its hand-off, as for any warm sandbox; a child takes the CPUs
// the zygote had when it started, whatever was done to the zygote since.
// The raw clone skips glibc's fork bookkeeping: the child's thread
// descriptor keeps the zygote's thread id, which glibc uses only to signal
// or reschedule a thread named by pthread_self() (raise and abort ask the
// kernel for the caller's id: a child that raises SIGTERM dies of it,
// checked on glibc 2.36) and for priority-inheriting mutexes; neither hone
// nor Python does so.
//
// Threads: the calling (only) thread. Failure to fork is a reply; a broken
// socket ends the zygote.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hone::sandbox {

// The embedded Python a warm sandbox started: its library (dlopen's handle)
// and the thread state PyEval_SaveThread returned when warming ended.
struct EmbeddedPython {
  void* library = nullptr;
  void* thread_state = nullptr;
};

// Where a forked child's descriptors go: the numbers the zygote was started
// with (the child continues as if started there).
struct ZygoteFds {
  int ctl_in = -1, ctl_out = -1, handoff = -1;
};

// Why a fork request cannot be served, "" when it can: the request must name
// one scratch folder by its absolute path and carry four descriptors, and
// the zygote must have one thread (`threads`: their names) and no CUDA
// driver started. The words go back to the worker, which lets the zygote go.
std::string ForkRefusal(const std::vector<std::string>& args, size_t descriptors,
                        const std::vector<std::string>& threads, bool cuda_started);

// Serves fork requests on fds.handoff until the worker closes it (then the
// zygote exits). Returns only in a child, with its scratch folder, which is
// already its working directory; its descriptors are in place.
std::string ServeForks(const ZygoteFds& fds, const std::string& own_scratch, EmbeddedPython& py);

}  // namespace hone::sandbox
