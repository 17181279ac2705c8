#include "sandbox/zygote.h"

#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "sandbox/own_threads.h"
#include "wire/handoff.h"
#include "wire/protocol.h"

namespace hone::sandbox {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "hone-sandbox: zygote: %s\n", what.c_str());
  std::_Exit(wire::kSetupFailedExitCode);
}

// Python's C API around a fork, as os.fork uses it: the interpreter lock
// held across it, the import lock and the at-fork callbacks handled.
struct ForkApi {
  void (*restore_thread)(void*) = nullptr;
  void* (*save_thread)() = nullptr;
  void (*before_fork)() = nullptr;
  void (*after_fork_parent)() = nullptr;
  void (*after_fork_child)() = nullptr;
  int (*run)(const char*) = nullptr;
};

ForkApi FindForkApi(void* library) {
  ForkApi api;
  auto find = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
    if (!fn) Die(std::string("the Python library lacks ") + name);
  };
  find(api.restore_thread, "PyEval_RestoreThread");
  find(api.save_thread, "PyEval_SaveThread");
  find(api.before_fork, "PyOS_BeforeFork");
  find(api.after_fork_parent, "PyOS_AfterFork_Parent");
  find(api.after_fork_child, "PyOS_AfterFork_Child");
  find(api.run, "PyRun_SimpleString");
  return api;
}

// A Python bytes literal of any path: every byte escaped.
std::string BytesLiteral(const std::string& s) {
  std::string out = "b'";
  char buf[5];
  for (unsigned char c : s) {
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  }
  return out + "'";
}

void Reply(int socket, const std::string& kind, const std::string& detail) {
  std::string error;
  if (!handoff::Send(socket, {kind, detail}, {}, &error)) Die(error);
}

void CloseAll(const std::vector<int>& fds) {
  for (int fd : fds) close(fd);
}

// True when the CUDA driver is loaded in this process and was initialised:
// its state (the context, the device's mappings, the driver's threads and
// locks) is not a fork's to copy, and a child would create its own on a
// corrupted driver. Asked without linking the driver: cuDeviceGetCount
// answers CUDA_ERROR_NOT_INITIALIZED (3) until cuInit has run.
bool CudaStarted() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!driver) return false;
  auto count = reinterpret_cast<int (*)(int*)>(dlsym(driver, "cuDeviceGetCount"));
  int devices = 0;
  const bool started = count && count(&devices) != 3;
  dlclose(driver);
  return started;
}

// In the child, before anything else: die with the worker, take a process
// group of its own, and take the descriptors' places.
void TakeChildsPlace(const ZygoteFds& fds, const std::vector<int>& got, pid_t worker) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != worker) std::_Exit(wire::kSetupFailedExitCode);  // the worker went meanwhile
  setpgid(0, 0);
  const int place[] = {fds.ctl_in, fds.ctl_out, STDOUT_FILENO, fds.handoff};
  for (int i = 0; i < 4; ++i)
    if (dup2(got[static_cast<size_t>(i)], place[i]) < 0) Die("cannot place a descriptor");
  if (dup2(got[2], STDERR_FILENO) < 0) Die("cannot place the log");
  for (int fd : got)
    if (fd != fds.ctl_in && fd != fds.ctl_out && fd != fds.handoff && fd > STDERR_FILENO) close(fd);
}

}  // namespace

std::string ForkRefusal(const std::vector<std::string>& args, size_t descriptors,
                        const std::vector<std::string>& threads, bool cuda_started) {
  if (args.size() != 1 || args[0].empty() || args[0][0] != '/')
    return "a fork request names one scratch folder by its absolute path";
  if (descriptors != 4) return "a fork request carries four descriptors";
  if (threads.size() != 1)
    return "the zygote has " + std::to_string(threads.size()) + " threads (" + NameList(threads) +
           "): a fork copies one thread and any lock another holds";
  if (cuda_started) return "CUDA has started in the zygote: a fork would share its driver state";
  return "";
}

std::string ServeForks(const ZygoteFds& fds, const std::string& own_scratch, EmbeddedPython& py) {
  if (!py.library) Die("a zygote needs the embedded Python warmed first");
  const ForkApi api = FindForkApi(py.library);
  const pid_t worker = getppid();
  // Its CPUs now, before any child has run a candidate: a child resets to
  // them, so a candidate that re-pinned the zygote (same user, no root)
  // cannot pin the sandboxes forked after it.
  cpu_set_t cpus;
  const bool have_cpus = sched_getaffinity(0, sizeof cpus, &cpus) == 0;
  while (true) {
    std::vector<std::string> args;
    std::vector<int> got;
    std::string error;
    if (!handoff::Receive(fds.handoff, &args, &got, &error)) std::_Exit(0);  // the worker is done
    if (std::string problem = ForkRefusal(args, got.size(), OwnThreadNames(), CudaStarted());
        !problem.empty()) {
      CloseAll(got);
      Reply(fds.handoff, "error", problem);
      continue;
    }
    api.restore_thread(py.thread_state);
    api.before_fork();
    // CLONE_PARENT: the worker's child, which it reaps like one it spawned.
    long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) {
      api.after_fork_child();
      TakeChildsPlace(fds, got, worker);
      if (have_cpus) sched_setaffinity(0, sizeof cpus, &cpus);
      const std::string& scratch = args[0];
      if (chdir(scratch.c_str()) != 0) Die("cannot enter the scratch directory " + scratch);
      std::string call = "hone_compat_after_fork(" + BytesLiteral(own_scratch) + ", " +
                         BytesLiteral(scratch) + ")\n";
      if (api.run(call.c_str()) != 0) Die("cannot move the environment to " + scratch);
      py.thread_state = api.save_thread();
      return scratch;
    }
    const int clone_errno = errno;
    api.after_fork_parent();
    py.thread_state = api.save_thread();
    CloseAll(got);
    if (pid < 0)
      Reply(fds.handoff, "error", std::string("clone: ") + std::strerror(clone_errno));
    else
      Reply(fds.handoff, "pid", std::to_string(pid));
  }
}

}  // namespace hone::sandbox
