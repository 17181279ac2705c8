// hone-sandbox (CPU) and hone-sandbox-cuda: the only processes that ever run
// candidate code.
//
// Started by the worker (process/sandbox_process.cc) with a scrubbed environment,
// resource limits, a private scratch directory as its working directory and
// these inherited descriptors: requests in, replies out, the candidate
// library and, on the CPU, the shared arena (inputs and outputs only;
// expected outputs never enter this process). On CUDA the arena arrives as an
// IPC handle. It confines itself, loads the library, reports ready, then
// serves bind and call requests until told to exit or killed. A warm
// sandbox starts Python first and gets the rest on a hand-off socket; a
// zygote (sandbox/zygote.h) forks warm sandboxes instead.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <glob.h>
#include <omp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "hone/kernel.h"
#include "sandbox/own_threads.h"
#include "sandbox/policy.h"
#include "sandbox/workspace_guard.h"
#include "sandbox/zygote.h"
#include "wire/handoff.h"
#include "wire/protocol.h"
#if HONE_SANDBOX_CUDA
#include "sandbox/cuda/cuda_sandbox.h"
#include "sandbox/cuda/standalone.h"
#endif

namespace {

using namespace hone;

struct Options {
  int ctl_in = -1, ctl_out = -1, arena_fd = -1, library_fd = -1;
  size_t arena_bytes = 0, llc_bytes = 0;
  std::string library_dir, scratch;
  std::vector<std::string> read_dirs;
  bool seccomp = true, landlock = true, netns = true;
  bool keep_user = false;           // --profile: an outside profiler must still reach the process
  std::string cuda_pci, arena_ipc;  // CUDA mode when cuda_pci is set
  std::vector<std::string> kernels;
  // A compat candidate (compat/compat_candidate.h): its library starts Python
  // and may build an extension while it loads, so the filter comes after.
  bool compat = false;
  // A warm sandbox (process/warm_pool.h): Python started from prewarm_python,
  // running prewarm_runner's hone_compat_prewarm(), before the rest of the
  // options (and the candidate) arrive on handoff_fd. The memory limit
  // comes with them.
  int handoff_fd = -1;
  std::string prewarm_python, prewarm_runner;
  bool prewarm_idle = false;  // warming under SCHED_IDLE: back to normal at the hand-off
  // Warmed, fork warm sandboxes on request instead (sandbox/zygote.h).
  bool zygote = false;
  size_t rlimit_as = 0, rlimit_data = 0;
  // --standalone-tensor: one call on tensors of the sandbox's own, under
  // compute-sanitizer (sandbox/cuda/standalone.h); no worker protocol.
  std::vector<std::string> standalone;
  std::string library_path;  // standalone: the candidate, by path
  bool cuda() const { return !cuda_pci.empty(); }
};

struct Binding {
  std::vector<hone_tensor> inputs, outputs;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  std::vector<std::pair<char*, size_t>> regions;  // for line flushes
};

using ForwardFn = int (*)(const hone_args*);
using WorkspaceFn = size_t (*)(const hone_tensor*, int32_t);

// CLOCK_MONOTONIC read by the system call instruction itself. Candidate code
// shares this process and can redirect clock_gettime (its GOT slot, or the
// vDSO while the library loads); it cannot redirect this. The worker's own
// clock bounds what is reported either way.
uint64_t RawMonotonicNanos() {
  timespec ts{};
#if defined(__x86_64__)
  long ret;
  asm volatile("syscall"
               : "=a"(ret)
               : "0"(static_cast<long>(SYS_clock_gettime)), "D"(static_cast<long>(CLOCK_MONOTONIC)),
                 "S"(&ts)
               : "rcx", "r11", "memory");
  (void)ret;
#else
  clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Whether this sandbox runs a compat candidate (hone_sandbox_mark_end).
bool g_compat = false;
// The current call's wire::Request::rng_seed (hone_sandbox_rng_seed).
uint64_t g_rng_seed = 0;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "hone-sandbox: %s\n", what);
  std::_Exit(wire::kSetupFailedExitCode);
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

bool ParseArgs(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--ctl-in")
      o.ctl_in = std::atoi(next().c_str());
    else if (a == "--ctl-out")
      o.ctl_out = std::atoi(next().c_str());
    else if (a == "--arena-fd")
      o.arena_fd = std::atoi(next().c_str());
    else if (a == "--arena-bytes")
      o.arena_bytes = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--arena-ipc")
      o.arena_ipc = next();
    else if (a == "--cuda-pci")
      o.cuda_pci = next();
    else if (a == "--cuda-device")
      next();  // the PCI id is what identifies the device
    else if (a == "--kernels")
      o.kernels = Split(next(), ',');
    else if (a == "--library-fd")
      o.library_fd = std::atoi(next().c_str());
    else if (a == "--library-dir")
      o.library_dir = next();
    else if (a == "--scratch")
      o.scratch = next();
    else if (a == "--read-dir")
      o.read_dirs.push_back(next());
    else if (a == "--llc-bytes")
      o.llc_bytes = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--compat")
      o.compat = true;
    else if (a == "--handoff-fd")
      o.handoff_fd = std::atoi(next().c_str());
    else if (a == "--prewarm-python")
      o.prewarm_python = next();
    else if (a == "--prewarm-runner")
      o.prewarm_runner = next();
    else if (a == "--prewarm-idle")
      o.prewarm_idle = true;
    else if (a == "--zygote")
      o.zygote = true;
    else if (a == "--rlimit-as")
      o.rlimit_as = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--rlimit-data")
      o.rlimit_data = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--no-seccomp")
      o.seccomp = false;
    else if (a == "--no-landlock")
      o.landlock = false;
    else if (a == "--no-netns")
      o.netns = false;
    else if (a == "--profile")
      o.seccomp = o.landlock = o.netns = false, o.keep_user = true;
    else if (a == "--standalone-tensor")
      o.standalone.push_back(next());
    else if (a == "--library")
      o.library_path = next();
    else
      return false;
  }
  if (!o.standalone.empty()) return o.cuda() && !o.library_path.empty();
  return o.ctl_in >= 0 && o.ctl_out >= 0 && (o.library_fd >= 0 || o.handoff_fd >= 0);
}

bool ReadAll(int fd, void* buf, size_t n) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t k = read(fd, p, n);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

wire::Reply MakeReply(wire::ReplyKind kind, const std::string& message) {
  wire::Reply r{};
  r.magic = wire::kMagic;
  r.kind = kind;
  std::snprintf(r.message, sizeof r.message, "%s", message.c_str());
  return r;
}

void Send(int fd, const wire::Reply& r) {
  const char* p = reinterpret_cast<const char*>(&r);
  size_t n = sizeof r;
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k <= 0) std::_Exit(wire::kSetupFailedExitCode);
    p += k;
    n -= static_cast<size_t>(k);
  }
}

void SendError(int fd, const std::string& message, uint64_t aux = 0) {
  wire::Reply r = MakeReply(wire::ReplyKind::kError, message);
  r.aux = aux;
  Send(fd, r);
}

// Evicts the CPU caches by writing a buffer twice the last-level cache (at
// most 128 MiB of it: run/sandbox_launcher.cc). The buffer is made at the
// first flush (a warm-up call), so a sandbox that only verifies never pays
// for it.
class CacheFlusher {
 public:
  explicit CacheFlusher(size_t bytes) : bytes_(bytes) {}
  void FlushAll() {
    if (bytes_ == 0) return;
    if (!buf_) {
      void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
      if (p == MAP_FAILED) Die("cannot allocate the cache-flush buffer");
      buf_ = static_cast<char*>(p);
    }
    for (size_t i = 0; i < bytes_; i += 64) buf_[i] = static_cast<char>(buf_[i] + 1);
    asm volatile("" ::: "memory");
  }
  // clflushopt where the CPU has it: plain clflush is serialised and costs
  // more than writing the whole flush buffer once the tensors pass ~8 MB.
  // `workspace`: its lines too (--flush lines); the llc flush adds only the
  // tensors', which both sides have alike, so their flush times compare.
  static void FlushLines(const Binding& b, bool workspace) {
    for (const auto& [p, n] : b.regions) {
      if (!workspace && p == static_cast<char*>(b.workspace)) continue;
      if (CheapLineFlush()) {
        FlushLinesOpt(p, n);
      } else {
        for (size_t i = 0; i < n; i += 64) __builtin_ia32_clflush(p + i);
      }
    }
    __builtin_ia32_mfence();
  }
  // Whether FlushLines costs about what it flushes (clflushopt), not a
  // serialised clflush per line.
  static bool CheapLineFlush() {
    static const bool opt = __builtin_cpu_supports("clflushopt");
    return opt;
  }
  __attribute__((target("clflushopt"))) static void FlushLinesOpt(char* p, size_t n) {
    for (size_t i = 0; i < n; i += 64) __builtin_ia32_clflushopt(p + i);
  }

 private:
  size_t bytes_;
  char* buf_ = nullptr;
};

class Server {
 public:
  Server(const Options& o, char* arena, ForwardFn forward, ForwardFn before_call,
         WorkspaceFn workspace, void* cuda)
      : o_(o),
        arena_(arena),
        forward_(forward),
        before_call_(before_call),
        workspace_fn_(workspace),
        flusher_(o.cuda() ? 0 : o.llc_bytes * 2),
        cuda_(cuda) {}

  void Run() {
    while (true) {
      wire::Request req{};
      if (!ReadAll(o_.ctl_in, &req, sizeof req)) std::_Exit(0);  // worker went away
      if (req.magic != wire::kMagic) Die("bad request");
      switch (req.op) {
        case wire::Op::kBind:
          Bind(req);
          break;
        case wire::Op::kCall:
          Call(req);
          break;
        case wire::Op::kExit:
          std::_Exit(0);
        default:
          Die("unknown request");
      }
    }
  }

 private:
  // The workspace with canaries around it (sandbox/workspace_guard.h).
  void* AllocWorkspace(size_t bytes) {
#if HONE_SANDBOX_CUDA
    if (cuda_) return static_cast<sandbox::CudaSandbox*>(cuda_)->AllocWorkspace(bytes);
#endif
    size_t total = sandbox::WorkspaceAllocationBytes(bytes);
    auto* raw = static_cast<unsigned char*>(std::aligned_alloc(256, total));
    if (!raw) return nullptr;
    std::memset(raw, sandbox::kWorkspaceCanary, sandbox::kWorkspaceGuardBytes);
    unsigned char* workspace = raw + sandbox::kWorkspaceGuardBytes;
    std::memset(workspace + bytes, sandbox::kWorkspaceCanary,
                sandbox::WorkspaceTailGuardBytes(bytes));
    return workspace;
  }
  void FreeWorkspace(void* p) {
    if (!p) return;
#if HONE_SANDBOX_CUDA
    if (cuda_) return static_cast<sandbox::CudaSandbox*>(cuda_)->FreeWorkspace(p);
#endif
    std::free(static_cast<unsigned char*>(p) - sandbox::kWorkspaceGuardBytes);
  }
  // After a call: when the candidate wrote around its workspace, says so
  // (the worker makes it a runtime_error) and ends the sandbox.
  void EndIfWorkspaceGuardHit(const Binding& b) {
    std::string hit = WorkspaceGuardHit(b);
    if (hit.empty()) return;
    SendError(o_.ctl_out, hit);
    std::_Exit(0);
  }
  // After a call: "" or what changed around the workspace.
  std::string WorkspaceGuardHit(const Binding& b) {
    if (!b.workspace) return "";
#if HONE_SANDBOX_CUDA
    if (cuda_)
      return static_cast<sandbox::CudaSandbox*>(cuda_)->WorkspaceGuardHit(b.workspace,
                                                                          b.workspace_bytes);
#endif
    auto* w = static_cast<const unsigned char*>(b.workspace);
    return sandbox::DescribeWorkspaceGuardHit(w - sandbox::kWorkspaceGuardBytes,
                                              w + b.workspace_bytes, b.workspace_bytes);
  }

  void Bind(const wire::Request& req) {
    wire::BindPayload p{};
    if (!ReadAll(o_.ctl_in, &p, sizeof p)) std::_Exit(0);
    if (p.num_inputs < 0 || p.num_outputs < 0 || p.num_inputs + p.num_outputs > 4096)
      Die("bad bind");
    Binding b;
    auto read_slots = [&](int n, std::vector<hone_tensor>& out) {
      for (int i = 0; i < n; ++i) {
        wire::TensorSlot s{};
        if (!ReadAll(o_.ctl_in, &s, sizeof s)) std::_Exit(0);
        if (s.offset + s.bytes > o_.arena_bytes || s.ndim < 0 || s.ndim > HONE_MAX_DIMS)
          Die("slot outside the arena");
        hone_tensor t{};
        t.data = arena_ + s.offset;
        t.dtype = static_cast<hone_dtype>(s.dtype);
        t.ndim = s.ndim;
        std::memcpy(t.shape, s.shape, sizeof t.shape);
        std::memcpy(t.stride, s.stride, sizeof t.stride);
        out.push_back(t);
        b.regions.emplace_back(arena_ + s.offset, s.bytes);
      }
    };
    read_slots(p.num_inputs, b.inputs);
    read_slots(p.num_outputs, b.outputs);
    if (workspace_fn_) {
      b.workspace_bytes = workspace_fn_(b.inputs.data(), static_cast<int32_t>(b.inputs.size()));
      if (b.workspace_bytes > (size_t{1} << 48))
        return SendError(
            o_.ctl_out,
            "hone_workspace_bytes asked for " + std::to_string(b.workspace_bytes) + " bytes",
            b.workspace_bytes);
      if (b.workspace_bytes > 0) {
        b.workspace = AllocWorkspace(b.workspace_bytes);
        if (!b.workspace)
          return SendError(
              o_.ctl_out,
              "cannot allocate the workspace of " + std::to_string(b.workspace_bytes) + " bytes",
              b.workspace_bytes);
        if (!cuda_) b.regions.emplace_back(static_cast<char*>(b.workspace), b.workspace_bytes);
      }
    }
    if (req.binding >= bindings_.size()) bindings_.resize(req.binding + 1);
    FreeWorkspace(bindings_[req.binding].workspace);
    bindings_[req.binding] = std::move(b);
#if HONE_SANDBOX_CUDA
    if (cuda_) sandbox::CudaSandbox::Bound();
#endif
    wire::Reply r = MakeReply(wire::ReplyKind::kOk, "");
    r.aux = bindings_[req.binding].workspace_bytes;
    Send(o_.ctl_out, r);
  }

  // Fresh copies of the tensor descriptors on every call: a candidate that
  // rewrites args->outputs[i].data (to alias an input, say) changes only its
  // own call, never what later calls are given.
  hone_args Args(const Binding& b) {
    call_inputs_ = b.inputs;
    call_outputs_ = b.outputs;
    hone_args args{};
    args.inputs = call_inputs_.data();
    args.num_inputs = static_cast<int32_t>(call_inputs_.size());
    args.outputs = call_outputs_.data();
    args.num_outputs = static_cast<int32_t>(call_outputs_.size());
    args.workspace = b.workspace;
    args.workspace_bytes = b.workspace_bytes;
    return args;
  }

  void Call(const wire::Request& req) {
    if (req.binding >= bindings_.size()) Die("call on an unbound binding");
    g_rng_seed = req.rng_seed;
    Binding& b = bindings_[req.binding];
    hone_args args = Args(b);
#if HONE_SANDBOX_CUDA
    if (cuda_) {
      auto r = static_cast<sandbox::CudaSandbox*>(cuda_)->Call(forward_, before_call_, &args,
                                                               (req.flags & wire::kFlushLlc) != 0,
                                                               (req.flags & wire::kTimed) != 0);
      fflush(stdout);
      if (!r.error.empty()) {
        SendError(o_.ctl_out, r.error);
        std::_Exit(0);  // the CUDA context is unusable after an error
      }
      EndIfWorkspaceGuardHit(b);
      wire::Reply reply = MakeReply(wire::ReplyKind::kOk, r.kernel_names);
      reply.rc = r.rc;
      reply.nanos = r.nanos;
      reply.launches = r.launches;
      reply.own_launches = r.own_launches;
      reply.side_launches = r.side_launches;
      reply.side_copies = r.side_copies;
      std::snprintf(reply.side_copy, sizeof reply.side_copy, "%s", r.first_side_copy.c_str());
      reply.device_sync_nanos = r.device_sync_nanos;
      reply.device_sync_cpu_nanos = r.device_sync_cpu_nanos;
      reply.device_sync_preempted = r.device_sync_preempted ? 1 : 0;
      reply.call_flags = (r.held ? wire::kCallHeld : 0u) | (r.marked ? wire::kCallMarked : 0u) |
                         (r.hold_timed_out ? wire::kCallHoldTimedOut : 0u) |
                         (r.launched_between ? wire::kCallLaunchedBetween : 0u);
      reply.aux = r.unjoined_streams;
      reply.post_mark_nanos = r.post_mark_nanos;
      return Send(o_.ctl_out, reply);
    }
#endif
    if (before_call_) before_call_(&args);
    uint64_t flush_start = RawMonotonicNanos();
    if (req.flags & wire::kFlushLlc) flusher_.FlushAll();
    // On the host the buffer may be smaller than the cache (its size is
    // capped: run/sandbox_launcher.cc), so the tensors' lines go too.
    if (req.flags & wire::kFlushLines) {
      CacheFlusher::FlushLines(b, /*workspace=*/true);
    } else if ((req.flags & wire::kFlushLlc) && !o_.cuda() && CacheFlusher::CheapLineFlush()) {
      CacheFlusher::FlushLines(b, /*workspace=*/false);
    }
    uint64_t t0 = RawMonotonicNanos();
    int rc = forward_(&args);
    fflush(stdout);  // what it prints is its own time, not the harness's
    uint64_t t1 = RawMonotonicNanos();
    EndIfWorkspaceGuardHit(b);
    wire::Reply reply = MakeReply(wire::ReplyKind::kOk, "");
    reply.rc = rc;
    reply.nanos = t1 - t0;
    reply.prepare_nanos = t0 - flush_start;
    Send(o_.ctl_out, reply);
  }

  const Options& o_;
  char* arena_;
  ForwardFn forward_;
  ForwardFn before_call_;  // a compat shim's, else null
  WorkspaceFn workspace_fn_;
  CacheFlusher flusher_;
  void* cuda_;  // sandbox::CudaSandbox in hone-sandbox-cuda, else null
  std::vector<Binding> bindings_;
  std::vector<hone_tensor> call_inputs_, call_outputs_;
};

// The GPU's device nodes, which the CUDA driver opens and controls.
std::vector<std::string> GpuDeviceFiles() {
  std::vector<std::string> out;
  glob_t g;
  if (glob("/dev/nvidia*", 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

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
sandbox::EmbeddedPython g_python;  // Prewarm's, for a zygote's forks

void Prewarm(const Options& o) {
  void* lib = dlopen(o.prewarm_python.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) Die((std::string("prewarm: cannot load ") + o.prewarm_python).c_str());
  auto init = reinterpret_cast<void (*)(int)>(dlsym(lib, "Py_InitializeEx"));
  auto run = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "PyRun_SimpleString"));
  auto save = reinterpret_cast<void* (*)()>(dlsym(lib, "PyEval_SaveThread"));
  if (!init || !run || !save) Die("prewarm: the Python library lacks its C API");
  FILE* f = std::fopen(o.prewarm_runner.c_str(), "r");
  if (!f) Die((std::string("prewarm: cannot read ") + o.prewarm_runner).c_str());
  std::string source;
  char buf[65536];
  for (size_t k; (k = std::fread(buf, 1, sizeof buf, f)) > 0;) source.append(buf, k);
  std::fclose(f);
  init(0);
  // The runner's folder, as a Python string: its language parts
  // (hone_lang_*.py) add their own imports.
  const std::string& runner = o.prewarm_runner;
  const size_t slash = runner.rfind('/');
  std::string dir = "'";
  for (char c : slash == std::string::npos ? std::string(".") : runner.substr(0, slash)) {
    if (c == '\\' || c == '\'') dir += '\\';
    dir += c;
  }
  dir += "'";
  if (run((source + "\nhone_compat_prewarm(" + dir + ")\n").c_str()) != 0)
    Die("prewarm: importing failed");
  g_python.library = lib;
  g_python.thread_state = save();  // the shim's constructor takes the interpreter lock back
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<std::string> names = sandbox::OwnThreadNames();
  std::erase_if(names, [](const std::string& n) { return n.rfind("cuda", 0) == 0; });
  if (names.size() != 1)
    Die(("prewarm: " + std::to_string(names.size()) +
         " threads besides the CUDA driver's after importing (1 expected): " +
         sandbox::NameList(names))
            .c_str());
}

// Every thread back to normal priority after warming under SCHED_IDLE (the
// CUDA driver's threads inherited it): the candidate is timed as any other.
void LeaveIdlePriority() {
  DIR* d = opendir("/proc/self/task");
  if (!d) Die("cannot list the sandbox's threads");
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    sched_param none{};
    if (sched_setscheduler(std::atoi(e->d_name), SCHED_OTHER, &none) != 0)
      Die("cannot return to normal priority after warming");
  }
  closedir(d);
}

// Reads the rest of the command line and the descriptors from the worker
// (wire/handoff.h) and lowers the memory limits to the candidate's.
void ReceiveHandoff(Options& o) {
  std::vector<std::string> args;
  std::vector<int> fds;
  std::string error;
  if (!handoff::Receive(o.handoff_fd, &args, &fds, &error)) Die(error.c_str());
  close(o.handoff_fd);
  o.handoff_fd = -1;
  args.insert(args.begin(), "hone-sandbox");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  if (fds.empty()) Die("bad hand-off: no candidate library");
  o.library_fd = fds[0];
  if (!ParseArgs(static_cast<int>(argv.size()), argv.data(), o)) Die("bad hand-off");
  if (fds.size() > 1) o.arena_fd = fds[1];  // the CPU arena (its --arena-fd names Spawn's number)
  auto lower = [](int resource, size_t bytes) {
    rlimit rl{bytes, bytes};
    if (bytes > 0 && setrlimit(resource, &rl) != 0) Die("cannot set the memory limit");
  };
  lower(RLIMIT_AS, o.rlimit_as);
  lower(RLIMIT_DATA, o.rlimit_data);
}

}  // namespace

// Called by a compat shim (python/hone_compat.py) between the model's
// forward and the copy of its results into hone's outputs, so that the
// copy, which KernelBench's timing of model(*inputs) does not have, is
// timed apart on the GPU. Honoured only for compat candidates on CUDA and
// once per call; the worker bounds what follows the mark, so marking early
// hides nothing. On the CPU a call's wall time after the mark is the
// machine's noise as much as the copy's, so CPU calls are timed whole, the
// baselines' too.
extern "C" __attribute__((visibility("default"), used)) void hone_sandbox_mark_end(void) {
  if (!g_compat) return;
#if HONE_SANDBOX_CUDA
  if (hone::sandbox::CudaSandbox* cs = hone::sandbox::CudaSandbox::active()) cs->MarkEnd();
#endif
}

// The seed a compat shim gives torch before a forward that draws random
// numbers: the one the oracle seeded the forward of this call's expected
// outputs with, so training-mode dropout draws the same mask.
extern "C" __attribute__((visibility("default"), used)) uint64_t hone_sandbox_rng_seed(void) {
  return g_rng_seed;
}

// Network, user, Landlock and the base seccomp filter: everything that
// comes before the candidate's library is loaded.
sandbox::PolicyReport ConfineBeforeLoad(const Options& o) {
  sandbox::PolicyReport report;
  sandbox::FileSystemRules rules;
  std::vector<std::string> read_dirs = o.read_dirs;
  read_dirs.push_back(o.library_dir);
  // The harmless character devices programs expect (torch.compile's
  // inductor opens /dev/null while it generates code).
  std::vector<std::string> devices = {"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"};
  if (o.cuda()) {
    for (std::string& d : GpuDeviceFiles()) devices.push_back(std::move(d));
    for (const char* d : {"/proc", "/sys", "/usr/local/cuda", "/usr/local/nvidia"})
      read_dirs.push_back(d);
  }
  if (o.landlock) rules.Open(read_dirs, o.scratch, devices);
  if (o.netns) sandbox::IsolateNetwork(report);
  if (!o.keep_user) sandbox::DropPrivileges(report);
  if (o.landlock) rules.Apply(report);
  // Standalone (under compute-sanitizer) there is no worker to read a
  // wire reply: a violation goes to stderr, into the tool's log.
  if (o.standalone.empty())
    sandbox::InstallViolationReporter(o.ctl_out);
  else
    sandbox::InstallViolationReporter(STDERR_FILENO, /*text=*/true);
  if (o.seccomp && !o.compat) sandbox::InstallBaseFilter(report, o.cuda());
  return report;
}

// hone-sandbox-cuda --standalone-tensor ...: one confined call, the verdict
// on stderr and in the exit code (0 clean, 3 non-zero return, 4 CUDA error).
int RunStandalone(const Options& o) {
#if HONE_SANDBOX_CUDA
  std::vector<sandbox::StandaloneTensor> tensors;
  for (const std::string& spec : o.standalone) {
    sandbox::StandaloneTensor t;
    if (!sandbox::ParseStandaloneTensor(spec, &t)) Die(("bad --standalone-tensor " + spec).c_str());
    tensors.push_back(std::move(t));
  }
  if (!o.scratch.empty() && chdir(o.scratch.c_str()) != 0)
    Die("cannot enter the scratch directory");
  sandbox::StandaloneCall call;
  std::string error;
  if (!call.Prepare(o.cuda_pci, tensors, &error)) Die(("set-up failed: " + error).c_str());
  // Opened before privileges are dropped: the build cache may be root's.
  int library = open(o.library_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (library < 0) Die("cannot open the candidate");
  ConfineBeforeLoad(o);
  std::string path = "/proc/self/fd/" + std::to_string(library);
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    Die(("cannot load the candidate: " + std::string(e ? e : "unknown error")).c_str());
  }
  auto forward = reinterpret_cast<ForwardFn>(dlsym(lib, "hone_forward"));
  auto workspace = reinterpret_cast<WorkspaceFn>(dlsym(lib, "hone_workspace_bytes"));
  if (!forward) Die("the candidate does not export hone_forward");
  if (o.seccomp && o.compat) {
    // A compat shim has loaded (Python, its first call): from here on the
    // deny-list a worker's compat sandbox gets after its load.
    sandbox::PolicyReport after_load;
    sandbox::InstallBaseFilter(after_load, /*cuda=*/true);
  }
  int rc = call.Run(forward, workspace, &error);
  std::fprintf(stderr, "hone-sandbox: standalone call: %s\n", rc == 0 ? "ok" : error.c_str());
  return rc;
#else
  (void)o;
  Die("--standalone-tensor needs hone-sandbox-cuda");
#endif
}

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, o)) Die("usage: started by hone, not by hand");
  if (!o.standalone.empty()) return RunStandalone(o);
  if (o.handoff_fd >= 0) {
    if (!o.scratch.empty() && chdir(o.scratch.c_str()) != 0)
      Die("cannot enter the scratch directory");
    if (!o.prewarm_python.empty()) Prewarm(o);
    Send(o.ctl_out, MakeReply(wire::ReplyKind::kWarm, ""));
    if (o.zygote) {
      // Returns in a forked child only, which then warms as any sandbox.
      o.scratch = sandbox::ServeForks({o.ctl_in, o.ctl_out, o.handoff_fd}, o.scratch, g_python);
      Send(o.ctl_out, MakeReply(wire::ReplyKind::kWarm, ""));
    }
    ReceiveHandoff(o);
    if (o.prewarm_idle) LeaveIdlePriority();
  }
  g_compat = o.compat;
  char* arena = nullptr;
  void* cuda = nullptr;
  uint64_t event_overhead = 0;
  bool tracking = false;
  if (o.cuda()) {
#if HONE_SANDBOX_CUDA
    static sandbox::CudaSandbox cs;
    std::string error;
    if (!cs.Init(o.cuda_pci, o.arena_ipc, o.llc_bytes, o.kernels, o.compat, &error)) {
      SendError(o.ctl_out, "CUDA set-up failed: " + error);
      return wire::kSetupFailedExitCode;
    }
    arena = cs.arena();
    cuda = &cs;
    event_overhead = cs.event_overhead_nanos();
    tracking = cs.launch_tracking();
#else
    Die("this hone-sandbox was built without CUDA (use hone-sandbox-cuda)");
#endif
  } else if (o.arena_bytes > 0) {
    void* p = mmap(nullptr, o.arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, o.arena_fd, 0);
    if (p == MAP_FAILED) Die("cannot map the shared arena");
    arena = static_cast<char*>(p);
  }
  if (!o.scratch.empty() && chdir(o.scratch.c_str()) != 0)
    Die("cannot enter the scratch directory");

  // Start the OpenMP runtime now, before confinement: it reads the CPU
  // topology once, and candidates then find it loaded and initialised.
  omp_get_max_threads();

  sandbox::PolicyReport report = ConfineBeforeLoad(o);

  std::string path = "/proc/self/fd/" + std::to_string(o.library_fd);
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    SendError(o.ctl_out, std::string("cannot load the candidate: ") + (e ? e : "unknown error"));
    return wire::kSetupFailedExitCode;
  }
  close(o.library_fd);
  auto forward = reinterpret_cast<ForwardFn>(dlsym(lib, "hone_forward"));
  auto workspace = reinterpret_cast<WorkspaceFn>(dlsym(lib, "hone_workspace_bytes"));
  if (!forward) {
    SendError(o.ctl_out,
              "the candidate does not export hone_forward (declare it with HONE_EXPORT)");
    return wire::kSetupFailedExitCode;
  }
  if (o.seccomp && o.compat) {
    // Python and torch open files and map code as they go: the deny-list
    // (no processes, network, tracing, privileges) applies, Landlock keeps
    // files read-only, and the allow-list and post-load rules do not.
    sandbox::InstallBaseFilter(report, /*cuda=*/true);
    report.missing.push_back(
        "compat candidate: the system-call allow-list, the no-open and W^X rules (Python and "
        "torch need them; the deny-list and Landlock apply)");
  } else if (o.seccomp) {
    sandbox::InstallPostLoadFilter(report);
  }
  if (tracking)
    report.features |= wire::kFeatureLaunchTracking;
  else if (o.cuda())
    report.missing.push_back("kernel launch tracking (CUPTI)");

  std::string missing;
  for (const auto& m : report.missing) missing += (missing.empty() ? "" : "; ") + m;
  wire::Reply ready = MakeReply(wire::ReplyKind::kReady, missing);
  ready.aux = report.features;
  ready.nanos = event_overhead;
  Send(o.ctl_out, ready);
  // Only hone's own compat shim gets a step before the clock starts (it
  // reads the call's Python scalars there): a native candidate's export of
  // that name is never called, so its work cannot leave the timed span.
  auto before_call =
      o.compat ? reinterpret_cast<ForwardFn>(dlsym(lib, "hone_compat_before_call")) : nullptr;
  Server(o, arena, forward, before_call, workspace, cuda).Run();
  return 0;
}
