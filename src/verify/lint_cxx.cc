#include "verify/lint_cxx.h"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "build/cxx_tokens.h"

namespace hone {
namespace {

// ===================================================================== rules

// Indices into RuleList(), in its order.
enum Rule : int {
  kHostThread,
  kProcess,
  kNetwork,
  kFile,
  kEnvironment,
  kDynamicLoading,
  kMemoryProtection,
  kInlineAsm,
  kTiming,
  kStream,
  kDeviceContext,
  kLibrary,
  kSignal,
  kLoadTimeCode,
  kSyscall,
  kSandbox,
  kIntrospection,
};

const std::vector<LintRule>& RuleList() {
  static const std::vector<LintRule> rules = {
      {"host-thread",
       "starts host threads outside OpenMP: work can outlive the call and escape its timing "
       "(use #pragma omp for host parallelism)"},
      {"process",
       "starts, signals, waits for or inspects other processes: a kernel computes its outputs "
       "in its own process"},
      {"network", "uses the network: a kernel has nothing to send or fetch"},
      {"file",
       "opens, creates or inspects files: a kernel reads only its inputs, and a file can hold "
       "cached or expected results"},
      {"environment",
       "reads or changes environment variables: a kernel's result must depend on its inputs "
       "only"},
      {"dynamic-loading",
       "loads code or looks up symbols at run time: code that the lint and the build never "
       "saw"},
      {"memory-protection",
       "changes memory protection or asks for executable memory: code made at run time "
       "escapes review"},
      {"inline-asm",
       "inline assembly in host code hides what the host does (PTX asm in __device__ or "
       "__global__ code is fine)"},
      {"timing",
       "reads host clocks, CUDA events or profilers: a kernel has no use for timing, and it can "
       "tell timed calls from checked ones"},
      {"stream",
       "creates or captures streams or graphs, or picks another stream or device: all work "
       "must go on args->stream, where hone times it"},
      {"device-context",
       "creates, switches or resets CUDA contexts, or shares memory with other processes: a "
       "kernel runs in the context it is given"},
      {"library",
       "calls a library that does the work (cuBLAS, cuDNN, MKL, torch...): the candidate must "
       "compute with its own code; header-only templates (CUTLASS, CUB, Thrust) are fine"},
      {"signal",
       "installs signal handlers or timers: code that runs between calls, outside the timed "
       "region"},
      {"load-time-code",
       "runs code when the library is loaded or unloaded (constructor attributes, .init_array "
       "sections, _init/_fini): outside every call, before the sandbox's last restrictions"},
      {"syscall", "issues raw system calls, which bypass every other rule"},
      {"sandbox",
       "changes its own limits, privileges, namespaces or seccomp filters: a kernel has no "
       "reason to touch the sandbox"},
      {"introspection",
       "reads the process's own executable image, return addresses or file descriptors: the "
       "harness shares the process, and a kernel has no business with its code or channels"},
  };
  return rules;
}

// How an identifier must be used to match a pattern. Distinctive names match
// anywhere; ambiguous short names (open, system) only where they can only be
// the C library's function.
enum class Use {
  kName,         // the identifier, except as a member (x.name, p->name)
  kCall,         // name( unqualified, or std::name / ::name anywhere
  kFreeCall,     // name( unqualified, or ::name (std::name is fine: std::bind)
  kPointer,      // name* unqualified, or std::name / ::name anywhere (FILE)
  kPrefix,       // identifiers that start with the text, except as members
  kLowerPrefix,  // the text followed by a lower-case letter (SYS_read, not SYS_SIZE)
  kNamespace,    // name:: or std::name (chrono, filesystem, torch)
  kStd,          // std::name, not std::name::member; bare name after `using namespace std`
  kBoost,        // boost::name
};

struct Pattern {
  std::string_view text;
  Use use;
  Rule rule;
};

// clang-format off
constexpr Pattern kPatterns[] = {
    // host-thread. std::thread::hardware_concurrency() starts nothing: kStd skips it.
    {"thread", Use::kStd, kHostThread}, {"jthread", Use::kStd, kHostThread},
    {"async", Use::kStd, kHostThread}, {"thread", Use::kBoost, kHostThread},
    {"pthread_create", Use::kName, kHostThread}, {"thrd_create", Use::kName, kHostThread},
    // process
    {"fork", Use::kCall, kProcess}, {"vfork", Use::kName, kProcess},
    {"clone", Use::kCall, kProcess}, {"clone3", Use::kName, kProcess},
    {"execve", Use::kName, kProcess}, {"execv", Use::kName, kProcess},
    {"execl", Use::kName, kProcess}, {"execvp", Use::kName, kProcess},
    {"execlp", Use::kName, kProcess}, {"execle", Use::kName, kProcess},
    {"execvpe", Use::kName, kProcess}, {"execveat", Use::kName, kProcess},
    {"fexecve", Use::kName, kProcess}, {"system", Use::kCall, kProcess},
    {"popen", Use::kName, kProcess}, {"posix_spawn", Use::kName, kProcess},
    {"posix_spawnp", Use::kName, kProcess}, {"kill", Use::kCall, kProcess},
    {"killpg", Use::kName, kProcess}, {"tgkill", Use::kName, kProcess},
    {"tkill", Use::kName, kProcess}, {"ptrace", Use::kName, kProcess},
    {"waitpid", Use::kName, kProcess}, {"wait4", Use::kName, kProcess},
    {"waitid", Use::kName, kProcess}, {"getppid", Use::kName, kProcess},
    {"daemon", Use::kCall, kProcess}, {"process_vm_readv", Use::kName, kProcess},
    {"process_vm_writev", Use::kName, kProcess}, {"pidfd_open", Use::kName, kProcess},
    {"pidfd_getfd", Use::kName, kProcess}, {"pidfd_send_signal", Use::kName, kProcess},
    // network
    {"socket", Use::kCall, kNetwork}, {"socketpair", Use::kName, kNetwork},
    {"connect", Use::kCall, kNetwork}, {"bind", Use::kFreeCall, kNetwork},
    {"listen", Use::kCall, kNetwork}, {"accept", Use::kCall, kNetwork},
    {"accept4", Use::kName, kNetwork}, {"getaddrinfo", Use::kName, kNetwork},
    {"gethostbyname", Use::kName, kNetwork}, {"gethostbyname2", Use::kName, kNetwork},
    {"gethostbyaddr", Use::kName, kNetwork}, {"sendto", Use::kName, kNetwork},
    {"recvfrom", Use::kName, kNetwork}, {"sendmsg", Use::kName, kNetwork},
    {"recvmsg", Use::kName, kNetwork}, {"setsockopt", Use::kName, kNetwork},
    {"getsockopt", Use::kName, kNetwork}, {"curl_easy_", Use::kPrefix, kNetwork},
    {"curl_multi_", Use::kPrefix, kNetwork}, {"curl_global_", Use::kPrefix, kNetwork},
    {"curl_share_", Use::kPrefix, kNetwork}, {"curl_url", Use::kPrefix, kNetwork},
    // file. Printing to stdout or stderr is not file access.
    {"fopen", Use::kName, kFile}, {"fopen64", Use::kName, kFile},
    {"freopen", Use::kName, kFile}, {"fdopen", Use::kName, kFile},
    {"open", Use::kCall, kFile}, {"open64", Use::kName, kFile},
    {"openat", Use::kName, kFile}, {"openat64", Use::kName, kFile},
    {"creat", Use::kCall, kFile}, {"creat64", Use::kName, kFile},
    {"ifstream", Use::kName, kFile}, {"ofstream", Use::kName, kFile},
    {"fstream", Use::kName, kFile}, {"wifstream", Use::kName, kFile},
    {"wofstream", Use::kName, kFile}, {"wfstream", Use::kName, kFile},
    {"basic_ifstream", Use::kName, kFile}, {"basic_ofstream", Use::kName, kFile},
    {"basic_fstream", Use::kName, kFile}, {"basic_filebuf", Use::kName, kFile},
    {"filebuf", Use::kName, kFile}, {"filesystem", Use::kNamespace, kFile},
    {"opendir", Use::kName, kFile}, {"fdopendir", Use::kName, kFile},
    {"readdir", Use::kName, kFile}, {"readdir64", Use::kName, kFile},
    {"scandir", Use::kName, kFile}, {"nftw", Use::kName, kFile},
    {"unlink", Use::kName, kFile}, {"unlinkat", Use::kName, kFile},
    {"rmdir", Use::kName, kFile}, {"rename", Use::kCall, kFile},
    {"renameat", Use::kName, kFile}, {"renameat2", Use::kName, kFile},
    {"mkdir", Use::kCall, kFile}, {"mkdirat", Use::kName, kFile},
    {"mkstemp", Use::kName, kFile}, {"mkostemp", Use::kName, kFile},
    {"mkdtemp", Use::kName, kFile}, {"tmpfile", Use::kName, kFile},
    {"tmpnam", Use::kName, kFile}, {"tempnam", Use::kName, kFile},
    {"stat", Use::kCall, kFile}, {"stat64", Use::kName, kFile},
    {"lstat", Use::kName, kFile}, {"lstat64", Use::kName, kFile},
    {"fstatat", Use::kName, kFile}, {"statx", Use::kName, kFile},
    {"access", Use::kCall, kFile}, {"faccessat", Use::kName, kFile},
    {"euidaccess", Use::kName, kFile}, {"eaccess", Use::kName, kFile},
    {"readlink", Use::kName, kFile}, {"readlinkat", Use::kName, kFile},
    {"realpath", Use::kName, kFile}, {"symlink", Use::kName, kFile},
    {"symlinkat", Use::kName, kFile}, {"chmod", Use::kName, kFile},
    {"chown", Use::kName, kFile}, {"chdir", Use::kName, kFile},
    {"memfd_create", Use::kName, kFile}, {"name_to_handle_at", Use::kName, kFile},
    {"open_by_handle_at", Use::kName, kFile}, {"FILE", Use::kPointer, kFile},
    // environment
    {"getenv", Use::kName, kEnvironment}, {"secure_getenv", Use::kName, kEnvironment},
    {"setenv", Use::kName, kEnvironment}, {"putenv", Use::kName, kEnvironment},
    {"unsetenv", Use::kName, kEnvironment}, {"clearenv", Use::kName, kEnvironment},
    {"environ", Use::kName, kEnvironment}, {"__environ", Use::kName, kEnvironment},
    {"_environ", Use::kName, kEnvironment},
    // dynamic-loading
    {"dlopen", Use::kName, kDynamicLoading}, {"dlmopen", Use::kName, kDynamicLoading},
    {"dlsym", Use::kName, kDynamicLoading}, {"dlvsym", Use::kName, kDynamicLoading},
    {"dladdr", Use::kName, kDynamicLoading}, {"dladdr1", Use::kName, kDynamicLoading},
    {"dlinfo", Use::kName, kDynamicLoading}, {"dlclose", Use::kName, kDynamicLoading},
    {"dlerror", Use::kName, kDynamicLoading}, {"dl_iterate_phdr", Use::kName, kDynamicLoading},
    {"_GLOBAL_OFFSET_TABLE_", Use::kName, kDynamicLoading},
    {"_DYNAMIC", Use::kName, kDynamicLoading}, {"_r_debug", Use::kName, kDynamicLoading},
    {"__libc_dlopen_mode", Use::kName, kDynamicLoading},
    {"__libc_dlsym", Use::kName, kDynamicLoading}, {"_dl_", Use::kPrefix, kDynamicLoading},
    {"cuGetProcAddress", Use::kPrefix, kDynamicLoading},
    {"cudaGetDriverEntryPoint", Use::kPrefix, kDynamicLoading},
    {"cuModuleLoad", Use::kPrefix, kDynamicLoading},
    {"cuLibraryLoad", Use::kPrefix, kDynamicLoading},
    {"cudaLibraryLoad", Use::kPrefix, kDynamicLoading},
    {"cuLink", Use::kPrefix, kDynamicLoading}, {"nvrtc", Use::kPrefix, kDynamicLoading},
    {"nvJitLink", Use::kPrefix, kDynamicLoading},
    // memory-protection. Anonymous mmap is fine; executable memory is not.
    {"mprotect", Use::kName, kMemoryProtection},
    {"pkey_mprotect", Use::kName, kMemoryProtection},
    {"PROT_EXEC", Use::kName, kMemoryProtection},
    // timing. clock()/clock64() are left alone: device code reads them legitimately.
    {"clock_gettime", Use::kName, kTiming}, {"clock_getres", Use::kName, kTiming},
    {"gettimeofday", Use::kName, kTiming}, {"timespec_get", Use::kName, kTiming},
    {"rdtsc", Use::kName, kTiming}, {"rdtscp", Use::kName, kTiming},
    {"__rdtsc", Use::kName, kTiming}, {"__rdtscp", Use::kName, kTiming},
    {"_rdtsc", Use::kName, kTiming}, {"__rdpmc", Use::kName, kTiming},
    {"__builtin_ia32_rdtsc", Use::kName, kTiming},
    {"__builtin_ia32_rdtscp", Use::kName, kTiming},
    {"__builtin_ia32_rdpmc", Use::kName, kTiming},
    {"__builtin_readcyclecounter", Use::kName, kTiming},
    {"__builtin_readsteadycounter", Use::kName, kTiming},
    {"chrono", Use::kNamespace, kTiming}, {"cudaEvent", Use::kPrefix, kTiming},
    {"cuEvent", Use::kPrefix, kTiming}, {"cupti", Use::kPrefix, kTiming},
    {"CUpti_", Use::kPrefix, kTiming}, {"nvtx", Use::kPrefix, kTiming},
    {"cudaProfilerStart", Use::kName, kTiming}, {"cudaProfilerStop", Use::kName, kTiming},
    {"cuProfilerStart", Use::kName, kTiming},
    {"omp_get_wtime", Use::kName, kTiming},
    {"omp_get_wtick", Use::kName, kTiming}, {"cuProfilerStop", Use::kName, kTiming},
    // stream. Synchronising args->stream or the device is fine.
    {"cudaStreamCreate", Use::kPrefix, kStream}, {"cuStreamCreate", Use::kPrefix, kStream},
    {"cudaGraph", Use::kPrefix, kStream}, {"cuGraph", Use::kPrefix, kStream},
    {"cudaStreamBeginCapture", Use::kPrefix, kStream},
    {"cuStreamBeginCapture", Use::kPrefix, kStream},
    {"cudaStreamEndCapture", Use::kName, kStream}, {"cuStreamEndCapture", Use::kName, kStream},
    {"cudaStreamPerThread", Use::kName, kStream}, {"cudaStreamLegacy", Use::kName, kStream},
    {"CU_STREAM_PER_THREAD", Use::kName, kStream}, {"CU_STREAM_LEGACY", Use::kName, kStream},
    {"cudaLaunchHostFunc", Use::kName, kStream}, {"cuLaunchHostFunc", Use::kName, kStream},
    {"cudaStreamAddCallback", Use::kName, kStream},
    {"cuStreamAddCallback", Use::kName, kStream}, {"cudaSetDevice", Use::kPrefix, kStream},
    // device-context
    {"cudaDeviceReset", Use::kName, kDeviceContext},
    {"cudaSetValidDevices", Use::kName, kDeviceContext},
    {"cudaIpc", Use::kPrefix, kDeviceContext}, {"cuIpc", Use::kPrefix, kDeviceContext},
    {"cuCtxCreate", Use::kPrefix, kDeviceContext},
    {"cuCtxDestroy", Use::kPrefix, kDeviceContext},
    {"cuCtxSetCurrent", Use::kName, kDeviceContext},
    {"cuCtxPushCurrent", Use::kPrefix, kDeviceContext},
    {"cuCtxPopCurrent", Use::kPrefix, kDeviceContext},
    {"cuDevicePrimaryCtx", Use::kPrefix, kDeviceContext},
    {"cuMemImportFromShareableHandle", Use::kName, kDeviceContext},
    {"cuMemExportToShareableHandle", Use::kName, kDeviceContext},
    // library. The device cuRAND API (curand_init, curand_uniform) is fine.
    {"cublas", Use::kPrefix, kLibrary}, {"cudnn", Use::kPrefix, kLibrary},
    {"cufft", Use::kPrefix, kLibrary}, {"cusparse", Use::kPrefix, kLibrary},
    {"cusolver", Use::kPrefix, kLibrary}, {"curandCreate", Use::kPrefix, kLibrary},
    {"curandGenerate", Use::kPrefix, kLibrary}, {"cutensor", Use::kPrefix, kLibrary},
    {"cudss", Use::kPrefix, kLibrary}, {"nccl", Use::kPrefix, kLibrary},
    {"cblas_", Use::kPrefix, kLibrary}, {"LAPACKE_", Use::kPrefix, kLibrary},
    {"mkl_", Use::kPrefix, kLibrary}, {"dnnl_", Use::kPrefix, kLibrary},
    {"magma_", Use::kPrefix, kLibrary}, {"sgemm_", Use::kName, kLibrary},
    {"dgemm_", Use::kName, kLibrary}, {"hgemm_", Use::kName, kLibrary},
    {"cgemm_", Use::kName, kLibrary}, {"zgemm_", Use::kName, kLibrary},
    {"ATen", Use::kName, kLibrary}, {"torch", Use::kNamespace, kLibrary},
    {"at", Use::kNamespace, kLibrary}, {"c10", Use::kNamespace, kLibrary},
    // signal
    {"signal", Use::kCall, kSignal}, {"sigaction", Use::kName, kSignal},
    {"setitimer", Use::kName, kSignal}, {"alarm", Use::kCall, kSignal},
    {"ualarm", Use::kName, kSignal}, {"timer_create", Use::kName, kSignal},
    {"timer_settime", Use::kName, kSignal}, {"timerfd_create", Use::kName, kSignal},
    {"timerfd_settime", Use::kName, kSignal}, {"signalfd", Use::kName, kSignal},
    {"pthread_kill", Use::kName, kSignal}, {"sigqueue", Use::kName, kSignal},
    // load-time-code (attributes are matched separately)
    {"_init", Use::kName, kLoadTimeCode}, {"_fini", Use::kName, kLoadTimeCode},
    // syscall
    {"syscall", Use::kName, kSyscall}, {"__NR_", Use::kPrefix, kSyscall},
    {"SYS_", Use::kLowerPrefix, kSyscall},
    // sandbox
    {"prctl", Use::kName, kSandbox}, {"seccomp", Use::kName, kSandbox},
    {"setrlimit", Use::kName, kSandbox}, {"prlimit", Use::kName, kSandbox},
    {"prlimit64", Use::kName, kSandbox}, {"unshare", Use::kName, kSandbox},
    {"setns", Use::kName, kSandbox}, {"chroot", Use::kName, kSandbox},
    {"pivot_root", Use::kName, kSandbox}, {"setuid", Use::kName, kSandbox},
    {"seteuid", Use::kName, kSandbox}, {"setreuid", Use::kName, kSandbox},
    {"setresuid", Use::kName, kSandbox}, {"setgid", Use::kName, kSandbox},
    {"setegid", Use::kName, kSandbox}, {"setregid", Use::kName, kSandbox},
    {"setresgid", Use::kName, kSandbox}, {"setgroups", Use::kName, kSandbox},
    {"capset", Use::kName, kSandbox}, {"landlock_", Use::kPrefix, kSandbox},
    {"mount", Use::kCall, kSandbox}, {"umount", Use::kName, kSandbox},
    {"umount2", Use::kName, kSandbox}, {"personality", Use::kCall, kSandbox},
    // introspection: finding and rewriting the harness that shares the process
    // (its ELF image, its GOT, its reply channel on inherited descriptors).
    {"__builtin_return_address", Use::kName, kIntrospection},
    {"__builtin_frame_address", Use::kName, kIntrospection},
    {"__builtin_extract_return_addr", Use::kName, kIntrospection},
    {"Elf32_", Use::kPrefix, kIntrospection}, {"Elf64_", Use::kPrefix, kIntrospection},
    {"ElfW", Use::kName, kIntrospection}, {"__executable_start", Use::kName, kIntrospection},
    {"__ehdr_start", Use::kName, kIntrospection}, {"etext", Use::kCall, kIntrospection},
    {"edata", Use::kCall, kIntrospection}, {"_end", Use::kCall, kIntrospection},
    {"_etext", Use::kCall, kIntrospection}, {"_edata", Use::kCall, kIntrospection},
    {"getauxval", Use::kName, kIntrospection}, {"_dl_auxv", Use::kName, kIntrospection},
    {"program_invocation_name", Use::kName, kIntrospection},
    {"backtrace", Use::kName, kIntrospection}, {"_Unwind_", Use::kPrefix, kIntrospection},
    {"read", Use::kCall, kIntrospection}, {"write", Use::kCall, kIntrospection},
    {"pread", Use::kCall, kIntrospection}, {"pwrite", Use::kCall, kIntrospection},
    {"pread64", Use::kCall, kIntrospection}, {"pwrite64", Use::kCall, kIntrospection},
    {"readv", Use::kName, kIntrospection}, {"writev", Use::kName, kIntrospection},
    {"dup", Use::kCall, kIntrospection}, {"dup2", Use::kName, kIntrospection},
    {"dup3", Use::kName, kIntrospection}, {"close", Use::kCall, kIntrospection},
    {"poll", Use::kCall, kIntrospection},
    {"fcntl", Use::kName, kIntrospection}, {"ioctl", Use::kName, kIntrospection},
    {"sendmsg", Use::kName, kIntrospection}, {"recvmsg", Use::kName, kIntrospection},
    {"splice", Use::kCall, kIntrospection}, {"vmsplice", Use::kName, kIntrospection},
};
// clang-format on

// Headers that are only needed for a forbidden use. Matched against the
// included name's last component (kFile, kFilePrefix), any directory
// component (kDirectory) or its start (kPath).
enum class HeaderMatch { kFile, kFilePrefix, kDirectory, kPath };

struct HeaderPattern {
  std::string_view text;
  HeaderMatch how;
  Rule rule;
};

// clang-format off
constexpr HeaderPattern kHeaderPatterns[] = {
    {"cublas", HeaderMatch::kFilePrefix, kLibrary}, {"cudnn", HeaderMatch::kFilePrefix, kLibrary},
    {"cufft", HeaderMatch::kFilePrefix, kLibrary}, {"cusparse", HeaderMatch::kFilePrefix, kLibrary},
    {"cusolver", HeaderMatch::kFilePrefix, kLibrary},
    {"cutensor", HeaderMatch::kFilePrefix, kLibrary}, {"cudss", HeaderMatch::kFilePrefix, kLibrary},
    {"mkl", HeaderMatch::kFilePrefix, kLibrary}, {"dnnl", HeaderMatch::kFilePrefix, kLibrary},
    {"lapacke", HeaderMatch::kFilePrefix, kLibrary},
    {"openblas", HeaderMatch::kFilePrefix, kLibrary}, {"magma", HeaderMatch::kFilePrefix, kLibrary},
    {"curand.h", HeaderMatch::kFile, kLibrary}, {"nccl.h", HeaderMatch::kFile, kLibrary},
    {"cblas.h", HeaderMatch::kFile, kLibrary}, {"torch", HeaderMatch::kDirectory, kLibrary},
    {"ATen", HeaderMatch::kDirectory, kLibrary}, {"c10", HeaderMatch::kDirectory, kLibrary},
    {"oneapi", HeaderMatch::kDirectory, kLibrary},
    {"cupti", HeaderMatch::kFilePrefix, kTiming}, {"nvToolsExt", HeaderMatch::kFilePrefix, kTiming},
    {"nvtx3", HeaderMatch::kDirectory, kTiming}, {"cuda_profiler_api.h", HeaderMatch::kFile, kTiming},
    {"cudaProfiler.h", HeaderMatch::kFile, kTiming},
    {"dlfcn.h", HeaderMatch::kFile, kDynamicLoading}, {"link.h", HeaderMatch::kFile, kDynamicLoading},
    {"elf.h", HeaderMatch::kFile, kIntrospection}, {"execinfo.h", HeaderMatch::kFile, kIntrospection},
    {"unwind.h", HeaderMatch::kFile, kIntrospection}, {"auxv.h", HeaderMatch::kFile, kIntrospection},
    {"nvrtc.h", HeaderMatch::kFile, kDynamicLoading},
    {"nvJitLink.h", HeaderMatch::kFile, kDynamicLoading},
    {"syscall.h", HeaderMatch::kFile, kSyscall}, {"asm/unistd", HeaderMatch::kPath, kSyscall},
    {"curl", HeaderMatch::kDirectory, kNetwork},
};
// clang-format on

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// ============================================================ reading the text

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

// A preprocessing directive: '#' up to the end of its logical line.
struct Directive {
  size_t begin = 0, end = 0;  // offsets in CxxSource::text(); `end` is the newline
  std::string name;           // "include", "define", "if", ...
};

// A header name, or a string literal on a directive line (a macro that
// names a header: `#define H "cublas_v2.h"`).
struct HeaderName {
  size_t pos = 0;
  std::string name;
  bool angled = false;    // <name>, not "name"
  bool included = false;  // the operand of #include
};

// The source as the rules read it (build/cxx_tokens.h), and what they need
// of it besides its tokens.
struct Scan {
  const CxxSource& source;
  std::vector<Directive> directives;
  std::vector<HeaderName> headers;
  // Numbers with a digit separator, spelled with '_' for '\'' (the
  // spelling findings have always quoted in a header name built from
  // pieces); tokens view into them.
  std::deque<std::string> spellings;

  int Line(size_t pos) const { return source.LineAt(pos); }
};

bool IsIncludeDirective(std::string_view name) {
  return name == "include" || name == "include_next" || name == "import";
}

// ==================================================================== tokens

// A token as the rules match it. Literals are gone: a string leaves `""`
// (so `extern "C"` stays visible), a character literal nothing. A
// punctuator is one character, except "::" and "->"; a digraph reads as the
// punctuator it stands for.
struct LintToken {
  std::string_view text;
  size_t pos = 0;  // offset in CxxSource::text()
  int line = 0;
  int directive = -1;  // index into Scan::directives; -1 outside any
  bool ident = false;
};

// The tokens of `scan.source` as the rules see them. The operand of an
// #include is matched as a header name, not as code, and the text of
// #error and #warning is prose: those lines leave no tokens. Every string
// on a directive line is kept as a possible header name.
std::vector<LintToken> LintTokens(Scan& scan) {
  const CxxSource& src = scan.source;
  for (const CxxDirective& d : src.directives())
    scan.directives.push_back({d.begin, d.end, std::string(d.name)});
  std::vector<LintToken> out;
  const std::vector<Token>& tokens = src.tokens();
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    const int d = t.directive;
    if (d >= 0 && (t.kind == TokenKind::kString || t.kind == TokenKind::kHeaderName)) {
      const bool operand =
          t.kind == TokenKind::kHeaderName ||
          (IsIncludeDirective(scan.directives[d].name) && i == src.directives()[d].first + 2);
      scan.headers.push_back(
          {t.begin, std::string(t.body), t.kind == TokenKind::kHeaderName, operand});
    }
    if (d >= 0) {
      const std::string& name = scan.directives[d].name;
      if (IsIncludeDirective(name) || name == "error" || name == "warning") continue;
    }
    switch (t.kind) {
      case TokenKind::kIdentifier:
        out.push_back({t.text, t.begin, t.line, d, true});
        break;
      case TokenKind::kNumber: {
        std::string_view text = t.text;
        if (text.find('\'') != std::string_view::npos) {
          std::string& s = scan.spellings.emplace_back(text);
          std::replace(s.begin(), s.end(), '\'', '_');
          text = s;
        }
        out.push_back({text, t.begin, t.line, d, false});
        break;
      }
      case TokenKind::kString:
        if (t.end - t.begin >= 2) out.push_back({"\"\"", t.begin, t.line, d, false});
        break;
      case TokenKind::kPunct:
        for (size_t k = 0; k < t.text.size(); ++k)
          out.push_back({t.text.substr(k, 1), t.begin + k, src.LineAt(t.begin + k), d, false});
        break;
      default:  // character literals and header names
        break;
    }
  }
  // "::" and "->", where their characters touch.
  std::vector<LintToken> merged;
  merged.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const LintToken& a = out[i];
    if (i + 1 < out.size() && out[i + 1].pos == a.pos + 1 &&
        ((a.text == ":" && out[i + 1].text == ":") || (a.text == "-" && out[i + 1].text == ">"))) {
      merged.push_back({a.text == ":" ? "::" : "->", a.pos, a.line, a.directive, false});
      ++i;
    } else {
      merged.push_back(a);
    }
  }
  return merged;
}

bool Is(const std::vector<LintToken>& t, size_t i, std::string_view text) {
  return i < t.size() && t[i].text == text;
}

// Each directive's tokens, [first, last).
std::vector<std::pair<size_t, size_t>> DirectiveTokens(const Scan& scan,
                                                       const std::vector<LintToken>& t) {
  std::vector<std::pair<size_t, size_t>> out(scan.directives.size(), {0, 0});
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].directive < 0) continue;
    auto& r = out[t[i].directive];
    if (r.first == r.second) r.first = i;
    r.second = i + 1;
  }
  return out;
}

// ===================================================================== names

// C++ keywords, with the alternative tokens (`not ::system(...)`).
bool IsKeyword(std::string_view s) {
  // clang-format off
  static const std::unordered_set<std::string_view> kKeywords = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "co_await",
      "co_return", "co_yield", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
      "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "requires", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
      "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
      "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
      "while", "xor", "xor_eq"};
  // clang-format on
  return kKeywords.count(s) > 0;
}

// What the file itself says about names used as qualifiers.
struct Names {
  // std and every name that reaches it: `namespace fs = std;`, or a
  // namespace that says `using namespace std;` (then fs::system is std's).
  std::unordered_set<std::string_view> std_like = {"std"};
  // Macro names: a qualifier that is a macro may expand to anything.
  std::unordered_set<std::string_view> macros;
  bool using_std = false;  // `using namespace std` somewhere
};

class NameCollector {
 public:
  explicit NameCollector(const std::vector<LintToken>& t) : t_(t) {}

  Names Run() && {
    for (size_t i = 0; i < t_.size(); ++i) {
      const std::string_view s = t_[i].text;
      if (s == "{") {
        open_.push_back(std::move(pending_));
        pending_.clear();
      } else if (s == "}") {
        if (!open_.empty()) open_.pop_back();
      } else if (s == ";") {
        pending_.clear();
      } else if (s == "namespace") {
        Namespace(i);
      } else if (s == "define" && t_[i].directive >= 0 && i > 0 && t_[i - 1].text == "#") {
        Define(i + 1);
      } else if (s == "using" && Is(t_, i + 1, "namespace")) {
        UsingNamespace(i + 2);
        ++i;
      }
    }
    return std::move(names_);
  }

 private:
  // namespace a::b {   or   namespace x = std;
  void Namespace(size_t i) {
    size_t k = i + 1;
    std::vector<std::string_view> parts;
    while (k < t_.size() && (t_[k].ident || t_[k].text == "::")) {
      if (t_[k].ident && t_[k].text != "inline") parts.push_back(t_[k].text);
      ++k;
    }
    if (parts.size() == 1 && Is(t_, k, "=")) {
      size_t v = k + 1;
      if (Is(t_, v, "::")) ++v;
      if (v < t_.size() && names_.std_like.count(t_[v].text) && !Is(t_, v + 1, "::"))
        names_.std_like.insert(parts[0]);
      return;
    }
    pending_ = parts;
  }

  // #define S std makes S another name of std; any other macro is unknown.
  void Define(size_t k) {
    if (k >= t_.size() || !t_[k].ident || t_[k].directive != t_[k - 1].directive) return;
    std::vector<std::string_view> body;
    for (size_t b = k + 1; b < t_.size() && t_[b].directive == t_[k].directive; ++b)
      body.push_back(t_[b].text);
    if (body == std::vector<std::string_view>{"std"} ||
        body == std::vector<std::string_view>{"::", "std"}) {
      names_.std_like.insert(t_[k].text);
    } else {
      names_.macros.insert(t_[k].text);
    }
  }

  void UsingNamespace(size_t k) {
    if (Is(t_, k, "::")) ++k;
    if (k >= t_.size() || !names_.std_like.count(t_[k].text) || Is(t_, k + 1, "::")) return;
    names_.using_std = true;
    // The enclosing namespaces (the innermost few: deeper nesting is absurd,
    // and walking all of it for every directive would be quadratic).
    const size_t from = open_.size() > 64 ? open_.size() - 64 : 0;
    for (size_t level = from; level < open_.size(); ++level)
      for (std::string_view n : open_[level]) names_.std_like.insert(n);
  }

  const std::vector<LintToken>& t_;
  Names names_;
  std::vector<std::vector<std::string_view>> open_;  // namespace names per open brace
  std::vector<std::string_view> pending_;            // a namespace header awaiting its '{'
};

enum class Qual {
  kNone,    // name
  kMember,  // x.name, p->name
  kGlobal,  // ::name, return ::name
  kStd,     // std::name, or through an alias of std
  kUser,    // mylib::name, Type<T>::name: a namespace or class, not the C library
  kMacro,   // M::name where M is a macro: it may expand to anything
};

struct Context {
  Qual qual = Qual::kNone;
  std::string_view qualifier;
  std::string_view next;  // the next token (on the same line, in a directive)
  bool next_ident = false;
  bool in_define = false;       // in a #define body, where a bare name can become a call
  bool macro_argument = false;  // directly inside M(...) for a macro M: CALL(system)("ls")
  // After a type (`Welford stat(0.f)`, `float signal(x)`): the name is being
  // declared, not called.
  bool declared = false;
};

bool IsBuiltinType(std::string_view s) {
  return s == "bool" || s == "char" || s == "char8_t" || s == "char16_t" || s == "char32_t" ||
         s == "wchar_t" || s == "short" || s == "int" || s == "long" || s == "float" ||
         s == "double" || s == "signed" || s == "unsigned" || s == "void" || s == "auto";
}

Context ContextOf(const Scan& scan, const std::vector<LintToken>& t, size_t i, const Names& names,
                  const std::vector<char>& macro_arguments) {
  Context c;
  c.macro_argument = macro_arguments[i];
  if (i + 1 < t.size() && t[i + 1].directive == t[i].directive) {
    c.next = t[i + 1].text;
    c.next_ident = t[i + 1].ident;
  }
  c.in_define = t[i].directive >= 0 && scan.directives[t[i].directive].name == "define";
  if (i == 0) return c;
  const LintToken& prev = t[i - 1];
  const std::string_view p = prev.text;
  c.declared = prev.directive == t[i].directive && prev.ident &&
               (IsBuiltinType(p) || (!IsKeyword(p) && !names.macros.count(p)));
  if (p == "." || p == "->") {
    c.qual = Qual::kMember;
  } else if (p == "::") {
    const LintToken* q = i >= 2 ? &t[i - 2] : nullptr;
    if (q && q->ident && !IsKeyword(q->text)) {
      c.qualifier = q->text;
      c.qual = names.std_like.count(q->text) ? Qual::kStd
               : names.macros.count(q->text) ? Qual::kMacro
                                             : Qual::kUser;
    } else if (q && (q->text == ">" || q->text == ")")) {
      c.qual = Qual::kUser;  // Type<T>::name, decltype(x)::name
    } else {
      c.qual = Qual::kGlobal;
    }
  }
  return c;
}

// Whether the identifier `id` in context `c` is a use of `p`.
bool Matches(const Pattern& p, std::string_view id, const Context& c, const Names& names) {
  const Qual q = c.qual;
  // Where a macro moves the name, the use's shape is not visible: `#define
  // RUN system` and `CALL(system)` make a call elsewhere. A name used as a
  // value there (before nothing, '(', ')', ',' or ';') counts as a call.
  const bool value =
      c.next.empty() || c.next == "(" || c.next == ")" || c.next == "," || c.next == ";";
  const bool moved = (c.in_define || c.macro_argument) && value;
  const bool call = (c.next == "(" && !c.declared) || moved;
  // A macro before :: may hide `std` or `return`: it counts as no qualifier.
  const bool bare = q == Qual::kNone || q == Qual::kMacro;
  const bool std_or_global = q == Qual::kStd || q == Qual::kGlobal;
  switch (p.use) {
    case Use::kName:
      return id == p.text && q != Qual::kMember;
    case Use::kCall:
      return id == p.text && ((bare && call) || std_or_global);
    case Use::kFreeCall:
      return id == p.text && ((bare && call) || q == Qual::kGlobal);
    case Use::kPointer:
      return id == p.text && ((bare && (c.next == "*" || moved)) || std_or_global);
    case Use::kPrefix:
      return StartsWith(id, p.text) && q != Qual::kMember;
    case Use::kLowerPrefix:
      return StartsWith(id, p.text) && id.size() > p.text.size() && IsLower(id[p.text.size()]) &&
             q != Qual::kMember;
    case Use::kNamespace:
      return id == p.text &&
             (q == Qual::kStd || ((bare || q == Qual::kGlobal) &&
                                  (c.next == "::" || (c.in_define && c.next.empty()))));
    case Use::kStd:
      if (id != p.text) return false;
      if (q == Qual::kStd) return c.next != "::";
      return names.using_std && q == Qual::kNone &&
             (c.next_ident || c.next == "(" || c.next == "{");
    case Use::kBoost:
      return id == p.text && c.qualifier == "boost";
  }
  return false;
}

// What a finding quotes for a name use: the name, or its qualified form.
std::string Display(const Pattern& p, std::string_view id, const Context& c) {
  if (p.use == Use::kStd || p.use == Use::kBoost) {
    if (c.qualifier.empty()) return std::string(id);  // bare, after `using namespace std`
    return std::string(c.qualifier) + "::" + std::string(id);
  }
  if (p.use == Use::kNamespace)
    return c.qual == Qual::kStd ? "std::" + std::string(id) : std::string(id) + "::";
  return std::string(id);
}

struct PatternIndex {
  std::unordered_map<std::string_view, std::vector<const Pattern*>> exact;
  std::vector<const Pattern*> prefixes;
};

const PatternIndex& Index() {
  static const PatternIndex index = [] {
    PatternIndex ix;
    for (const Pattern& p : kPatterns) {
      if (p.use == Use::kPrefix || p.use == Use::kLowerPrefix) {
        ix.prefixes.push_back(&p);
      } else {
        ix.exact[p.text].push_back(&p);
      }
    }
    return ix;
  }();
  return index;
}

const Pattern* MatchIdentifier(std::string_view id, const Context& c, const Names& names) {
  const PatternIndex& ix = Index();
  if (auto it = ix.exact.find(id); it != ix.exact.end()) {
    for (const Pattern* p : it->second)
      if (Matches(*p, id, c, names)) return p;
  }
  for (const Pattern* p : ix.prefixes)
    if (Matches(*p, id, c, names)) return p;
  return nullptr;
}

// ================================================================== findings

struct Hit {
  size_t pos = 0;
  int line = 0;
  Rule rule = kHostThread;
  std::string token;
};

// The parameters of each function-like #define: placeholders, not uses
// (`#define IDX(thread, block) ...` names no std::thread).
std::unordered_set<size_t> MacroParameters(const Scan& scan, const std::vector<LintToken>& t,
                                           const std::vector<std::pair<size_t, size_t>>& ranges) {
  std::unordered_set<size_t> out;
  for (size_t d = 0; d < scan.directives.size(); ++d) {
    const auto [first, last] = ranges[d];
    if (scan.directives[d].name != "define" || first + 3 >= last) continue;
    const LintToken& name = t[first + 2];
    if (t[first + 3].text != "(" || t[first + 3].pos != name.pos + name.text.size()) continue;
    std::unordered_set<std::string_view> params;
    for (size_t k = first + 4; k < last && t[k].text != ")"; ++k)
      if (t[k].ident) params.insert(t[k].text);
    for (size_t k = first + 4; k < last; ++k)
      if (params.count(t[k].text)) out.insert(k);
  }
  return out;
}

// For each token, whether the innermost parenthesis around it follows a
// macro name: it is a macro argument, and may become anything.
std::vector<char> MacroArguments(const std::vector<LintToken>& t, const Names& names) {
  std::vector<char> out(t.size(), 0);
  std::vector<char> opened;  // per open '(': whether a macro name precedes it
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].directive >= 0) continue;
    if (t[i].text == "(") {
      opened.push_back(i > 0 && t[i - 1].ident && names.macros.count(t[i - 1].text));
    } else if (t[i].text == ")") {
      if (!opened.empty()) opened.pop_back();
    } else {
      out[i] = !opened.empty() && opened.back();
    }
  }
  return out;
}

void MatchNames(const Scan& scan, const std::vector<LintToken>& t,
                const std::vector<std::pair<size_t, size_t>>& ranges, const Names& names,
                std::vector<Hit>& hits) {
  const std::unordered_set<size_t> params = MacroParameters(scan, t, ranges);
  const std::vector<char> macro_arguments = MacroArguments(t, names);
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].ident || params.count(i)) continue;
    const Context c = ContextOf(scan, t, i, names, macro_arguments);
    if (const Pattern* p = MatchIdentifier(t[i].text, c, names))
      hits.push_back({t[i].pos, t[i].line, p->rule, Display(*p, t[i].text, c)});
  }
}

const HeaderPattern* MatchHeader(std::string_view name) {
  std::vector<std::string_view> parts;
  for (size_t from = 0;;) {
    const size_t slash = name.find('/', from);
    parts.push_back(name.substr(from, slash == std::string_view::npos ? slash : slash - from));
    if (slash == std::string_view::npos) break;
    from = slash + 1;
  }
  const std::string_view file = parts.back();
  for (const HeaderPattern& h : kHeaderPatterns) {
    switch (h.how) {
      case HeaderMatch::kFile:
        if (file == h.text) return &h;
        break;
      case HeaderMatch::kFilePrefix:
        if (StartsWith(file, h.text)) return &h;
        break;
      case HeaderMatch::kDirectory:
        for (size_t k = 0; k + 1 < parts.size(); ++k)
          if (parts[k] == h.text) return &h;
        break;
      case HeaderMatch::kPath:
        if (StartsWith(name, h.text)) return &h;
        break;
    }
  }
  return nullptr;
}

// `#define H <dlfcn.h>` names a header for a later `#include H`.
std::vector<HeaderName> MacroHeaders(const Scan& scan, const std::vector<LintToken>& t,
                                     const std::vector<std::pair<size_t, size_t>>& ranges) {
  std::vector<HeaderName> out;
  for (size_t d = 0; d < scan.directives.size(); ++d) {
    const auto [first, last] = ranges[d];
    if (scan.directives[d].name != "define" || first + 4 >= last) continue;
    if (t[first + 3].text != "<" || t[last - 1].text != ">") continue;
    std::string name;
    for (size_t k = first + 4; k + 1 < last; ++k) name += t[k].text;
    out.push_back({t[first + 3].pos, std::move(name), true, false});
  }
  return out;
}

void MatchHeaders(const Scan& scan, const std::vector<LintToken>& t,
                  const std::vector<std::pair<size_t, size_t>>& ranges, std::vector<Hit>& hits) {
  std::vector<HeaderName> headers = scan.headers;
  for (HeaderName& h : MacroHeaders(scan, t, ranges)) headers.push_back(std::move(h));
  for (const HeaderName& h : headers) {
    const HeaderPattern* p = MatchHeader(h.name);
    if (!p) continue;
    const std::string quoted = h.angled ? "<" + h.name + ">" : "\"" + h.name + "\"";
    hits.push_back({h.pos, scan.Line(h.pos), p->rule, h.included ? "#include " + quoted : quoted});
  }
}

bool IsLoadTimeAttribute(std::string_view s) {
  return s == "constructor" || s == "__constructor__" || s == "destructor" ||
         s == "__destructor__" || s == "section" || s == "__section__" || s == "ifunc" ||
         s == "__ifunc__";
}

// __attribute__((constructor)), [[gnu::section(".init_array")]] and the like:
// code the loader runs, or data it treats as code to run. (target_clones
// also makes an ifunc, but the compiler writes its resolver: it is fine.)
void MatchAttributes(const std::vector<LintToken>& t, std::vector<Hit>& hits) {
  // One pass: inside an __attribute__((...)) or [[...]] until its brackets
  // close again.
  bool inside = false;
  std::string_view open, close;
  int depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string_view s = t[i].text;
    if (!inside) {
      if ((s == "__attribute__" || s == "__attribute") && Is(t, i + 1, "(")) {
        inside = true, open = "(", close = ")", depth = 0;
      } else if (s == "[" && Is(t, i + 1, "[")) {
        inside = true, open = "[", close = "]", depth = 1;
      }
      continue;
    }
    if (s == open) ++depth;
    if (s == close && --depth <= 0) inside = false;
    if (t[i].ident && IsLoadTimeAttribute(s)) {
      const std::string name(s);
      hits.push_back({t[i].pos, t[i].line, kLoadTimeCode,
                      open == "(" ? "__attribute__((" + name + "))" : "[[" + name + "]]"});
    }
  }
}

// ============================================================== device code

bool IsAsmKeyword(std::string_view s) { return s == "asm" || s == "__asm__" || s == "__asm"; }

// Macros, as far as deciding device code needs them.
struct Macro {
  std::vector<std::string_view> body;      // of the last definition
  std::vector<std::string_view> mentions;  // identifiers in any definition
  bool function_like = false;
  int definitions = 0;
  bool conditional = false;  // defined inside #if
  bool undefined = false;    // #undef'd somewhere
  bool separates = false;    // a body holds ';', '{' or '}': it can end a header
  bool has_asm = false;      // a body holds asm, directly or through another macro
  size_t asm_token = 0;      // that asm token
};

struct Macros {
  std::unordered_map<std::string_view, Macro> by_name;
  bool tampered = false;  // redefines CUDA's specifiers or asm, or closes a brace it did not open
  bool pasting = false;   // uses ## (a macro name may be built from pieces)
};

bool IsCudaSpecial(std::string_view s) {
  return s == "__global__" || s == "__device__" || s == "__host__" || s == "__CUDA_ARCH__" ||
         IsAsmKeyword(s);
}

// Reads one #define body into `macro`; flags what makes the file's braces
// untrustworthy.
void ReadMacroBody(const std::vector<LintToken>& t, size_t body, size_t last, Macro& macro,
                   Macros& m) {
  int braces = 0;
  bool dipped = false;
  macro.body.clear();
  for (size_t k = body; k < last; ++k) {
    const std::string_view s = t[k].text;
    macro.body.push_back(s);
    if (t[k].ident) macro.mentions.push_back(s);
    braces += s == "{" ? 1 : s == "}" ? -1 : 0;
    dipped |= braces < 0;
    macro.separates |= s == ";" || s == "{" || s == "}";
    if (s == "#" && k + 1 < last && t[k + 1].text == "#" && t[k + 1].pos == t[k].pos + 1)
      m.pasting = true;
    if (IsAsmKeyword(s) && !macro.has_asm) {
      macro.has_asm = true;
      macro.asm_token = k;
    }
  }
  // `#define X } void host() {` closes a body and opens another where it is used.
  if (braces != 0 || dipped) m.tampered = true;
}

// A macro that mentions an asm macro holds asm too (breadth first, linear).
void SpreadAsm(Macros& m) {
  std::unordered_map<std::string_view, std::vector<std::string_view>> users;
  std::vector<std::string_view> queue;
  for (auto& [name, macro] : m.by_name) {
    for (std::string_view s : macro.mentions)
      if (s != name) users[s].push_back(name);
    if (macro.has_asm) queue.push_back(name);
  }
  while (!queue.empty()) {
    const std::string_view name = queue.back();
    queue.pop_back();
    const size_t asm_token = m.by_name[name].asm_token;
    for (std::string_view user : users[name]) {
      Macro& u = m.by_name[user];
      if (u.has_asm) continue;
      u.has_asm = true;
      u.asm_token = asm_token;
      queue.push_back(user);
    }
  }
}

Macros CollectMacros(const Scan& scan, const std::vector<LintToken>& t,
                     const std::vector<std::pair<size_t, size_t>>& ranges) {
  Macros m;
  int conditional_depth = 0;
  for (size_t d = 0; d < scan.directives.size(); ++d) {
    const std::string& name = scan.directives[d].name;
    const auto [first, last] = ranges[d];
    if (name == "if" || name == "ifdef" || name == "ifndef") ++conditional_depth;
    if (name == "endif" && conditional_depth > 0) --conditional_depth;
    if ((name != "define" && name != "undef") || first + 2 >= last || !t[first + 2].ident) continue;
    const LintToken& id = t[first + 2];
    if (IsCudaSpecial(id.text)) m.tampered = true;
    Macro& macro = m.by_name[id.text];
    if (name == "undef") {
      macro.undefined = true;
      continue;
    }
    ++macro.definitions;
    macro.conditional |= conditional_depth > 0;
    size_t body = first + 3;
    // A '(' right after the name, with no space, makes it function-like.
    if (body < last && t[body].text == "(" && t[body].pos == id.pos + id.text.size()) {
      macro.function_like = true;
      while (body < last && t[body].text != ")") ++body;
      ++body;
    }
    ReadMacroBody(t, body, last, macro, m);
  }
  SpreadAsm(m);
  return m;
}

// Which tokens are device code in a .cu source. It walks the braces: a '{'
// at declaration level opens a scope (namespace, class, extern "C") or a
// function body, classified by its header (the text since the previous
// ';', '{' or '}'). A body whose header says __global__ or __device__ (not
// __host__ too) is device code, and so is everything nested in it. Code in
// an `#ifdef __CUDA_ARCH__` branch is device code wherever it is.
//
// Preprocessor conditionals can make the braces mean two things; when a
// branch does not close what it opens, or a macro redefines __device__ or
// holds an unbalanced brace, nothing is trusted to be device code.
class DeviceWalk {
 public:
  DeviceWalk(const Scan& scan, const std::vector<LintToken>& t,
             const std::vector<std::pair<size_t, size_t>>& ranges, const Macros& macros)
      : scan_(scan), t_(t), ranges_(ranges), macros_(macros), trusted_(!macros.tampered) {}

  // For each token index in `sites` (outside directives), whether it is
  // device code.
  std::unordered_map<size_t, bool> Run(const std::unordered_set<size_t>& sites) && {
    std::unordered_map<size_t, bool> device;
    for (size_t i = 0; i < t_.size(); ++i) {
      const LintToken& tok = t_[i];
      if (tok.directive >= 0) {
        if (ranges_[tok.directive].first == i) OnDirective(tok.directive);
        continue;
      }
      if (tok.text == "{") {
        Open(i);
      } else if (tok.text == "}") {
        Close(i);
      } else if (tok.text == ";") {
        ResetHeader(i);
      } else if (sites.count(i)) {
        device[i] = device_groups_ > 0 || (frames_.back().body && frames_.back().device);
      }
    }
    if (!trusted_)
      for (auto& [i, d] : device) d = false;
    return device;
  }

 private:
  struct Frame {
    bool body = false;    // a function body or a block in one (else a scope)
    bool device = false;  // inside a __global__ / __device__ function
  };
  struct Group {
    size_t depth = 0;      // frames open when the #if started
    bool device = false;   // the current branch compiles only for the device
    bool negated = false;  // #ifndef __CUDA_ARCH__: every later branch is device code
  };

  void ResetHeader(size_t i) { header_start_ = i + 1; }

  void Open(size_t i) {
    const std::vector<std::string_view> h = Header(i);
    const Frame& top = frames_.back();
    Frame f;
    if (top.body) {
      f = IsTypeHeader(h) ? Frame{false, false} : Frame{true, top.device};
    } else if (IsScopeHeader(h)) {
      f = Frame{false, false};
    } else {
      // A header cut by #if/#else may be two headers; trust neither.
      const bool cut = conditional_seen_ && last_conditional_pos_ > FirstHeaderPos(i);
      f = Frame{true, !cut && IsDeviceFunctionHeader(h)};
    }
    frames_.push_back(f);
    ResetHeader(i);
  }

  void Close(size_t i) {
    if (frames_.size() > 1) {
      frames_.pop_back();
    } else {
      trusted_ = false;  // a '}' that closes nothing
    }
    // A branch may not close what was opened before it.
    if (!groups_.empty() && frames_.size() < groups_.back().depth) trusted_ = false;
    ResetHeader(i);
  }

  // Where the header's first token outside directives is (or the '{').
  size_t FirstHeaderPos(size_t end) const {
    for (size_t k = header_start_; k < end; ++k)
      if (t_[k].directive < 0) return t_[k].pos;
    return t_[end].pos;
  }

  // The header's tokens, with trusted object-like macros expanded (so
  // `#define DEVICE __device__ __forceinline__` works). A macro that can
  // hold ';' or a brace leaves a ";": `__device__ int x SEMI void host()`
  // is two declarations.
  std::vector<std::string_view> Header(size_t end) const {
    std::vector<std::string_view> out;
    for (size_t k = header_start_; k < end; ++k)
      if (t_[k].directive < 0) Expand(t_[k].text, out, 0);
    return out;
  }

  void Expand(std::string_view s, std::vector<std::string_view>& out, int depth) const {
    static constexpr size_t kMaxExpansion = 4096;  // macros can grow exponentially
    auto it = macros_.by_name.find(s);
    if (it == macros_.by_name.end()) {
      out.push_back(s);
      return;
    }
    const Macro& m = it->second;
    const bool trusted = !m.function_like && m.definitions == 1 && !m.conditional && !m.undefined &&
                         depth < 8 && out.size() < kMaxExpansion;
    if (m.separates || !trusted) {
      out.push_back(m.separates ? ";" : s);
      return;
    }
    for (std::string_view b : m.body) Expand(b, out, depth + 1);
  }

  static size_t SkipTemplateParameters(const std::vector<std::string_view>& h, size_t k) {
    int angle = 0, paren = 0;
    for (; k < h.size(); ++k) {
      if (h[k] == "(") ++paren;
      if (h[k] == ")") --paren;
      if (paren > 0) continue;
      if (h[k] == "<") ++angle;
      if (h[k] == ">" && --angle <= 0) return k;
    }
    return k;
  }

  // A class key before any '(' (template parameter lists skipped).
  static bool IsTypeHeader(const std::vector<std::string_view>& h) {
    for (size_t k = 0; k < h.size(); ++k) {
      if (h[k] == "template" && k + 1 < h.size() && h[k + 1] == "<") {
        k = SkipTemplateParameters(h, k + 1);
        continue;
      }
      if (h[k] == "(") return false;
      if (h[k] == "struct" || h[k] == "class" || h[k] == "union" || h[k] == "enum" ||
          h[k] == "namespace")
        return true;
    }
    return false;
  }

  static bool IsScopeHeader(const std::vector<std::string_view>& h) {
    if (h.size() == 2 && h[0] == "extern" && h[1] == "\"\"") return true;  // extern "C" {
    return IsTypeHeader(h);
  }

  // A function definition's header: __global__ or __device__ (without
  // __host__) outside brackets, and a parameter list. Initializers are not
  // functions, and a lambda in one is host code: no '=' outside brackets
  // (`__device__ auto f = [] {...}`), no brackets left open
  // (`__device__ S s({[] {...}})`), no declarator in parentheses
  // (`__device__ void (*fp)() {[] {...}}`).
  static bool IsDeviceFunctionHeader(const std::vector<std::string_view>& h) {
    bool device = false, host = false, params = false;
    int depth = 0;
    for (size_t k = 0; k < h.size(); ++k) {
      const std::string_view s = h[k];
      if (s == ";" || s == "{" || s == "}") return false;
      if (s == "template" && k + 1 < h.size() && h[k + 1] == "<") {
        k = SkipTemplateParameters(h, k + 1);
      } else if (s == "operator") {
        k = SkipOperatorSymbol(h, k);
      } else if (s == "(" || s == "[") {
        if (depth == 0 && s == "(" && IsParenthesizedDeclarator(h, k)) return false;
        params |= depth == 0 && s == "(";
        ++depth;
      } else if (s == ")" || s == "]") {
        depth = std::max(0, depth - 1);
      } else if (depth == 0) {
        if (s == "__global__" || s == "__device__") device = true;
        if (s == "__host__") host = true;
        if (s == "=") return false;
      }
    }
    return device && !host && params && depth == 0;
  }

  // `(*name`, `(&name`, `(Class::*name`: a pointer or reference declarator.
  static bool IsParenthesizedDeclarator(const std::vector<std::string_view>& h, size_t k) {
    size_t j = k + 1;
    while (j + 1 < h.size() && (h[j] == "::" || (h[j + 1] == "::" && h[j] != "*"))) ++j;
    return j < h.size() && (h[j] == "*" || h[j] == "&" || h[j] == "^");
  }

  // operator=, operator==, operator(), operator[] ...: the symbol is a name.
  static size_t SkipOperatorSymbol(const std::vector<std::string_view>& h, size_t k) {
    if (k + 2 < h.size() &&
        ((h[k + 1] == "(" && h[k + 2] == ")") || (h[k + 1] == "[" && h[k + 2] == "]")))
      return k + 2;
    static constexpr std::string_view kSymbols = "=!<>+-*/%^&|~,";
    while (k + 1 < h.size() && h[k + 1].size() == 1 &&
           kSymbols.find(h[k + 1][0]) != std::string_view::npos)
      ++k;
    return k;
  }

  void OnDirective(int d) {
    const std::string& name = scan_.directives[d].name;
    const auto [first, last] = ranges_[d];
    std::vector<std::string_view> cond;
    for (size_t k = first + 2; k < last; ++k) cond.push_back(t_[k].text);
    const bool is_conditional = name == "if" || name == "ifdef" || name == "ifndef" ||
                                name == "elif" || name == "else" || name == "endif" ||
                                name == "elifdef" || name == "elifndef";
    if (!is_conditional) return;
    conditional_seen_ = true;
    last_conditional_pos_ = scan_.directives[d].begin;
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      Group g;
      g.depth = frames_.size();
      const bool arch_only = cond.size() == 1 && cond[0] == "__CUDA_ARCH__";
      if (name == "ifdef") g.device = arch_only;
      if (name == "ifndef") g.negated = arch_only;
      if (name == "if") {
        g.device = IsDeviceCondition(cond);
        g.negated = IsHostCondition(cond);
      }
      groups_.push_back(g);
      device_groups_ += g.device;
      return;
    }
    if (groups_.empty()) return;
    Group& g = groups_.back();
    if (frames_.size() != g.depth) trusted_ = false;  // the branch did not close what it opened
    device_groups_ -= g.device;
    if (name == "endif") {
      groups_.pop_back();
      return;
    }
    g.device = g.negated || (name == "elif" && IsDeviceCondition(cond));
    device_groups_ += g.device;
  }

  // A condition false whenever __CUDA_ARCH__ is undefined (the host pass):
  // an && chain with a conjunct `defined(__CUDA_ARCH__)`, `__CUDA_ARCH__`,
  // or `__CUDA_ARCH__ >= N` / `> N` / `== N` with N > 0. (`__CUDA_ARCH__ < 900`
  // is true on the host, where it reads as 0.)
  static bool IsDeviceCondition(const std::vector<std::string_view>& c) {
    int depth = 0;
    for (std::string_view s : c) {
      depth += s == "(" ? 1 : s == ")" ? -1 : 0;
      if (depth == 0 && (s == "|" || s == "?" || s == ",")) return false;
    }
    size_t start = 0;
    depth = 0;
    for (size_t k = 0; k <= c.size(); ++k) {
      const bool split =
          k == c.size() || (depth == 0 && c[k] == "&" && k + 1 < c.size() && c[k + 1] == "&");
      if (k < c.size()) depth += c[k] == "(" ? 1 : c[k] == ")" ? -1 : 0;
      if (!split) continue;
      if (IsDeviceConjunct(std::vector<std::string_view>(c.begin() + start, c.begin() + k)))
        return true;
      start = k + 2;
      ++k;
    }
    return false;
  }

  static bool IsDeviceConjunct(const std::vector<std::string_view>& all) {
    size_t lo = 0, hi = all.size();
    while (hi - lo >= 2 && all[lo] == "(" && all[hi - 1] == ")") ++lo, --hi;
    const std::vector<std::string_view> c(all.begin() + lo, all.begin() + hi);
    const std::string_view arch = "__CUDA_ARCH__";
    if (c.size() == 1) return c[0] == arch;
    if (c.size() == 2) return c[0] == "defined" && c[1] == arch;
    if (c.size() == 4 && c[0] == "defined" && c[1] == "(" && c[2] == arch && c[3] == ")")
      return true;
    if (c.empty() || c[0] != arch || !IsPositiveNumber(c.back())) return false;
    return (c.size() == 3 && c[1] == ">") ||
           (c.size() == 4 && (c[1] == ">" || c[1] == "=") && c[2] == "=");
  }

  static bool IsPositiveNumber(std::string_view s) {
    if (s.empty()) return false;
    bool nonzero = false;
    for (char ch : s) {
      if (!IsDigit(ch)) return false;
      nonzero |= ch != '0';
    }
    return nonzero;
  }

  // `!defined(__CUDA_ARCH__)`: its #else and #elif branches are device code.
  static bool IsHostCondition(const std::vector<std::string_view>& c) {
    const std::string_view arch = "__CUDA_ARCH__";
    if (c.size() == 3) return c[0] == "!" && c[1] == "defined" && c[2] == arch;
    return c.size() == 5 && c[0] == "!" && c[1] == "defined" && c[2] == "(" && c[3] == arch &&
           c[4] == ")";
  }

  const Scan& scan_;
  const std::vector<LintToken>& t_;
  const std::vector<std::pair<size_t, size_t>>& ranges_;
  const Macros& macros_;
  bool trusted_;
  std::vector<Frame> frames_{Frame{}};
  std::vector<Group> groups_;
  int device_groups_ = 0;  // groups whose current branch is device code only
  size_t header_start_ = 0;
  bool conditional_seen_ = false;
  size_t last_conditional_pos_ = 0;
};

// Host inline assembly: asm outside device code, and uses of macros that
// hold asm (a macro is judged where it is used, since that is where its
// asm lands).
void MatchAsm(const Scan& scan, const std::vector<LintToken>& t,
              const std::vector<std::pair<size_t, size_t>>& ranges, bool cuda,
              std::vector<Hit>& hits) {
  const Macros macros = CollectMacros(scan, t, ranges);
  struct Site {
    size_t token;
    std::string display;
  };
  std::vector<Site> sites;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].ident) continue;
    if (t[i].directive >= 0) {
      // Pasting (##) can build a macro's name where no use is visible:
      // then asm in a macro counts where it is written.
      if (IsAsmKeyword(t[i].text) && macros.pasting &&
          scan.directives[t[i].directive].name == "define")
        hits.push_back({t[i].pos, t[i].line, kInlineAsm, std::string(t[i].text)});
      continue;
    }
    if (IsAsmKeyword(t[i].text)) {
      sites.push_back({i, std::string(t[i].text)});
    } else if (auto it = macros.by_name.find(t[i].text);
               it != macros.by_name.end() && it->second.has_asm) {
      sites.push_back(
          {i, std::string(t[it->second.asm_token].text) + " in macro " + std::string(t[i].text)});
    }
  }
  if (sites.empty()) return;
  std::unordered_map<size_t, bool> device;
  if (cuda) {
    std::unordered_set<size_t> indices;
    for (const Site& s : sites) indices.insert(s.token);
    device = DeviceWalk(scan, t, ranges, macros).Run(indices);
  }
  for (const Site& s : sites) {
    if (device.count(s.token) && device[s.token]) continue;
    hits.push_back({t[s.token].pos, t[s.token].line, kInlineAsm, s.display});
  }
}

// A __device__ function named read or write is the kernel's own business:
// introspection is about the host process, so device code is exempt.
void DropDeviceIntrospection(const Scan& scan, const std::vector<LintToken>& t,
                             const std::vector<std::pair<size_t, size_t>>& ranges,
                             std::vector<Hit>& hits) {
  std::unordered_map<size_t, size_t> token_at;  // position -> token index
  for (const Hit& h : hits)
    if (h.rule == kIntrospection) token_at[h.pos] = t.size();
  if (token_at.empty()) return;
  std::unordered_set<size_t> indices;
  for (size_t i = 0; i < t.size(); ++i)
    if (auto it = token_at.find(t[i].pos); it != token_at.end() && it->second == t.size()) {
      it->second = i;
      indices.insert(i);
    }
  const Macros macros = CollectMacros(scan, t, ranges);
  std::unordered_map<size_t, bool> device = DeviceWalk(scan, t, ranges, macros).Run(indices);
  std::erase_if(hits, [&](const Hit& h) {
    if (h.rule != kIntrospection) return false;
    auto it = token_at.find(h.pos);
    return it != token_at.end() && it->second < t.size() && device[it->second];
  });
}

}  // namespace

const std::vector<LintRule>& CxxLintRules() { return RuleList(); }

std::vector<LintFinding> LintCxxSource(std::string_view source, const LintOptions& options) {
  const CxxSource src(source);
  Scan scan{src, {}, {}, {}};
  const std::vector<LintToken> tokens = LintTokens(scan);
  const auto ranges = DirectiveTokens(scan, tokens);
  const Names names = NameCollector(tokens).Run();
  std::vector<Hit> hits;
  MatchHeaders(scan, tokens, ranges, hits);
  MatchNames(scan, tokens, ranges, names, hits);
  MatchAttributes(tokens, hits);
  MatchAsm(scan, tokens, ranges, options.cuda, hits);
  if (options.cuda) DropDeviceIntrospection(scan, tokens, ranges, hits);
  std::stable_sort(hits.begin(), hits.end(),
                   [](const Hit& a, const Hit& b) { return a.pos < b.pos; });
  const std::vector<LintRule>& rules = RuleList();
  std::vector<LintFinding> out;
  for (Hit& h : hits) {
    const LintRule& r = rules[h.rule];
    if (options.allowed.count(r.name)) continue;
    out.push_back({r.name, h.line, std::move(h.token), r.explanation});
  }
  return out;
}

}  // namespace hone
