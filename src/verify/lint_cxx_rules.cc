#include "verify/lint_cxx_rules.h"

namespace hone::cxx_lint {
namespace {

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

}  // namespace

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

std::span<const Pattern> NamePatterns() { return kPatterns; }

std::span<const HeaderPattern> HeaderPatterns() { return kHeaderPatterns; }

}  // namespace hone::cxx_lint
