#include "process/sandbox_spawn.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <set>
#include <thread>

#include "core/fs.h"
#include "wire/protocol.h"

namespace hone {

bool Pipe::Open() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  r = fds[0];
  w = fds[1];
  return true;
}

void Pipe::Close() {
  if (r >= 0) close(r);
  if (w >= 0) close(w);
  r = w = -1;
}

std::vector<std::string> CandidateArgs(const SandboxConfig& c, const Arena& arena) {
  std::vector<std::string> args = {"--library-dir", c.library.parent_path().string(), "--llc-bytes",
                                   std::to_string(c.llc_bytes)};
  for (const auto& a : ConfinementArgs(c)) args.push_back(a);
  if (c.compat) args.push_back("--compat");
  for (const auto& a : arena.SandboxArgs()) args.push_back(a);
  for (const auto& a : c.extra_args) args.push_back(a);
  return args;
}

size_t AddressLimit(const SandboxConfig& c, const Arena* arena) {
  return c.memory_limit_bytes + (arena ? arena->size() : 0) + 2 * c.llc_bytes + (256ull << 20);
}

std::vector<std::string> SandboxEnvironment(const SandboxConfig& c,
                                            const std::filesystem::path& scratch) {
  int threads = c.threads > 0 ? c.threads : static_cast<int>(std::thread::hardware_concurrency());
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=" + scratch.string(),
                                  "TMPDIR=" + scratch.string(), "LANG=C", "LC_ALL=C",
                                  "OMP_NUM_THREADS=" + std::to_string(threads),
                                  // Idle OpenMP threads must not spin: they would steal cores
                                  // from the other side of an interleaved measurement.
                                  "OMP_WAIT_POLICY=PASSIVE",
                                  // CUDA: load modules when the candidate is loaded (before
                                  // confinement) and never write a JIT cache.
                                  "CUDA_MODULE_LOADING=EAGER", "CUDA_CACHE_DISABLE=1"};
  auto put = [&env](const std::string& entry) {
    std::string key = entry.substr(0, entry.find('=') + 1);
    std::erase_if(env, [&](const std::string& e) { return e.rfind(key, 0) == 0; });
    env.push_back(entry);
  };
  if (c.compat) {
    // torch has hundreds of kernels modules; loading them all at once takes
    // seconds and gigabytes. Python loads lazily anyway: it may open files.
    for (auto& e : env)
      if (e == "CUDA_MODULE_LOADING=EAGER") e = "CUDA_MODULE_LOADING=LAZY";
    for (const auto& extra : c.extra_env) put(extra);
  }
  for (const auto& entry : c.device_env) put(entry);
  // The libraries hone itself was started with (a carried CUDA or toml++).
  if (const char* ld = std::getenv("LD_LIBRARY_PATH"); ld && *ld)
    env.push_back(std::string("LD_LIBRARY_PATH=") + ld);
  // A profiler injects itself through the environment (LD_PRELOAD,
  // CUDA_INJECTION64_PATH, its own variables): pass on everything else.
  if (c.profile) {
    std::set<std::string> set;
    for (const auto& e : env) set.insert(e.substr(0, e.find('=')));
    for (char** e = environ; *e; ++e) {
      std::string entry(*e);
      if (!set.count(entry.substr(0, entry.find('=')))) env.push_back(entry);
    }
  }
  return env;
}

Result<std::filesystem::path> MakeScratch(const SandboxConfig& c) {
  HONE_ASSIGN_OR_RETURN(std::filesystem::path scratch, MakeTempDir(c.scratch_root, "sandbox"));
  if (geteuid() == 0 && chown(scratch.c_str(), 65534, 65534) != 0)
    return Status::Io("cannot hand the scratch directory to user nobody");
  return scratch;
}

void ExecSandbox(int req_r, int rep_w, int log_w, int arena, int library, int devnull,
                 const SandboxConfig& c, bool warm, bool idle, size_t address_limit, char** argv,
                 char** envp) {
  int moved[] = {fcntl(req_r, F_DUPFD, 100), fcntl(rep_w, F_DUPFD, 100),
                 arena >= 0 ? fcntl(arena, F_DUPFD, 100) : -1, fcntl(library, F_DUPFD, 100)};
  dup2(devnull, 0);
  dup2(log_w, 1);
  dup2(log_w, 2);
  dup2(moved[0], kCtlIn);
  dup2(moved[1], kCtlOut);
  dup2(moved[2] >= 0 ? moved[2] : devnull, kArenaFd);  // keeps descriptor numbers fixed
  dup2(moved[3], kLibraryFd);
  syscall(SYS_close_range, kLibraryFd + 1, ~0U, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  setpgid(0, 0);
  auto limit = [](int res, rlim_t v) {
    rlimit rl{v, v};
    setrlimit(res, &rl);
  };
  limit(RLIMIT_CORE, 0);
  // A profiler injected into the process needs its own memory and files.
  if (c.profile) {
    execve(argv[0], argv, envp);
    _exit(wire::kSetupFailedExitCode);
  }
  if (warm) {
    // Room to return to nice 0 (SCHED_OTHER) at the hand-off, and no more;
    // the worker puts it under SCHED_IDLE (Launch).
    if (idle) limit(RLIMIT_NICE, 20);
  } else if (c.limit_address_space) {
    limit(RLIMIT_AS, address_limit);
  } else {
    limit(RLIMIT_DATA, address_limit);
  }
  limit(RLIMIT_CPU, static_cast<rlim_t>(c.cpu_seconds));
  limit(RLIMIT_NOFILE, c.compat ? 4096 : c.open_files);
  limit(RLIMIT_FSIZE, 64ull << 20);
  // Threads count against RLIMIT_NPROC too, so it bounds rather than forbids;
  // seccomp forbids new processes outright.
  limit(RLIMIT_NPROC, 4096);
  // A finite stack keeps the kernel's normal address layout (mappings above
  // the executable), which the sandbox's protection of its own image needs.
  // Only an unlimited one is changed: it is also every thread's default
  // stack size, which RLIMIT_AS must accommodate.
  if (rlimit st{}; getrlimit(RLIMIT_STACK, &st) == 0 && st.rlim_cur == RLIM_INFINITY)
    limit(RLIMIT_STACK, 8ull << 20);
  execve(argv[0], argv, envp);
  _exit(wire::kSetupFailedExitCode);
}

}  // namespace hone
