#include "verify/lint.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/source_dir.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

std::vector<LintFinding> Lint(std::string_view source, bool cuda = false) {
  LintOptions o;
  o.cuda = cuda;
  return LintSource(source, o);
}

// "rule:line:token" for each finding, in order: one readable line per test.
std::vector<std::string> Summary(const std::vector<LintFinding>& findings) {
  std::vector<std::string> out;
  for (const LintFinding& f : findings)
    out.push_back(f.rule + ":" + std::to_string(f.line) + ":" + f.token);
  return out;
}

std::vector<std::string> Cpu(std::string_view source) { return Summary(Lint(source)); }
std::vector<std::string> Cuda(std::string_view source) { return Summary(Lint(source, true)); }

using Expected = std::vector<std::string>;
const Expected kClean = {};

// ------------------------------------------------------------------- rules

TEST(LintRulesTest, NamesAreUniqueKnownAndExplained) {
  std::set<std::string> names;
  for (const LintRule& r : LintRules()) {
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_FALSE(r.explanation.empty()) << r.name;
    EXPECT_EQ(r.explanation.find('\n'), std::string::npos) << r.name;
    EXPECT_TRUE(IsLintRule(r.name));
  }
  for (const char* n : {"host-thread", "process", "network", "file", "environment",
                        "dynamic-loading", "memory-protection", "inline-asm", "timing", "stream",
                        "library", "signal", "load-time-code", "syscall"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_FALSE(IsLintRule("nope"));
  EXPECT_FALSE(IsLintRule(""));
  EXPECT_FALSE(IsLintRule("File"));
}

TEST(LintRulesTest, FindingsCarryTheRulesExplanation) {
  const std::vector<LintFinding> f = Lint("void f() {\n  fopen(\"x\", \"r\");\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "file");
  EXPECT_EQ(f[0].line, 2);
  EXPECT_EQ(f[0].token, "fopen");
  for (const LintRule& r : LintRules()) {
    if (r.name == "file") {
      EXPECT_EQ(f[0].explanation, r.explanation);
    }
  }
  EXPECT_EQ(DescribeFinding(f[0]), "rule 'file' at line 2 (fopen): " + f[0].explanation);
}

TEST(LintRulesTest, AllowedRulesAreSkipped) {
  const char* src =
      "#include <cublas_v2.h>\n"
      "int f() { return getenv(\"X\") != nullptr; }\n";
  EXPECT_EQ(Cpu(src), (Expected{"library:1:#include <cublas_v2.h>", "environment:2:getenv"}));
  LintOptions o;
  o.allowed = {"library"};
  EXPECT_EQ(Summary(LintSource(src, o)), (Expected{"environment:2:getenv"}));
  o.allowed = {"library", "environment", "not-a-rule"};
  EXPECT_TRUE(LintSource(src, o).empty());
}

TEST(LintRulesTest, ReportsEveryFindingInSourceOrder) {
  const char* src =
      "#include <dlfcn.h>\n"
      "void f() {\n"
      "  int pid = fork(); system(\"ls\");\n"
      "  void* h = dlopen(\"x\", 0);\n"
      "}\n";
  EXPECT_EQ(Cpu(src), (Expected{"dynamic-loading:1:#include <dlfcn.h>", "process:3:fork",
                                "process:3:system", "dynamic-loading:4:dlopen"}));
}

// -------------------------------------------------------- rule by rule
//
// Each rule: what it must catch (with the right line), and near misses it
// must leave alone.

TEST(LintHostThreadTest, Flags) {
  EXPECT_EQ(Cpu("#include <thread>\nvoid f() {\n  std::thread t([] {});\n  t.join();\n}\n"),
            (Expected{"host-thread:3:std::thread"}));
  EXPECT_EQ(Cpu("auto r = std::async(work);"), (Expected{"host-thread:1:std::async"}));
  EXPECT_EQ(Cpu("std::vector<std::jthread> pool;"), (Expected{"host-thread:1:std::jthread"}));
  EXPECT_EQ(Cpu("pthread_t t;\npthread_create(&t, 0, f, 0);"),
            (Expected{"host-thread:2:pthread_create"}));
  EXPECT_EQ(Cpu("thrd_create(&t, f, 0);"), (Expected{"host-thread:1:thrd_create"}));
  EXPECT_EQ(Cpu("boost::thread t(f);"), (Expected{"host-thread:1:boost::thread"}));
  EXPECT_EQ(Cpu("using namespace std;\nvoid f() { thread t(g); t.detach(); }"),
            (Expected{"host-thread:2:thread"}));
  EXPECT_EQ(Cpu("namespace s = std;\ns::thread t(g);"), (Expected{"host-thread:2:s::thread"}));
}

TEST(LintHostThreadTest, LeavesOpenMpAndOtherThreadsAlone) {
  EXPECT_EQ(Cpu("#include <omp.h>\n"
                "void f(float* y, int n) {\n"
                "#pragma omp parallel for schedule(static)\n"
                "  for (int i = 0; i < n; ++i) y[i] = omp_get_thread_num();\n"
                "}\n"),
            kClean);
  EXPECT_EQ(Cpu("unsigned n = std::thread::hardware_concurrency();"), kClean);
  EXPECT_EQ(Cpu("int thread = 0; thread += 1; my_thread(); x.async(1);"), kClean);
  EXPECT_EQ(Cuda("__global__ void k(float* y) { int thread = threadIdx.x; y[thread] = 0; }"),
            kClean);
  // A macro parameter named `thread` is a placeholder.
  EXPECT_EQ(Cuda("#define IDX(thread, block) ((block) * 256 + (thread))\n"), kClean);
  // Under `using namespace std`, a variable named thread is still a variable.
  EXPECT_EQ(Cpu("using namespace std;\nint thread = 3; if (thread > 2) thread = 0;"), kClean);
}

TEST(LintProcessTest, Flags) {
  EXPECT_EQ(Cpu("void f() {\n  pid_t p = fork();\n  if (p > 0) waitpid(p, 0, 0);\n}"),
            (Expected{"process:2:fork", "process:3:waitpid"}));
  EXPECT_EQ(Cpu("int r = system(\"ls\");"), (Expected{"process:1:system"}));
  EXPECT_EQ(Cpu("int r = std::system(\"ls\");"), (Expected{"process:1:system"}));
  EXPECT_EQ(Cpu("int f() { return ::system(\"ls\"); }"), (Expected{"process:1:system"}));
  EXPECT_EQ(Cpu("execvp(\"sh\", argv);"), (Expected{"process:1:execvp"}));
  EXPECT_EQ(Cpu("FILE* p = popen(\"ls\", \"r\");"), (Expected{"file:1:FILE", "process:1:popen"}));
  EXPECT_EQ(Cpu("kill(getppid(), 9);"), (Expected{"process:1:kill", "process:1:getppid"}));
  EXPECT_EQ(Cpu("posix_spawn(&pid, \"/bin/sh\", 0, 0, argv, envp);"),
            (Expected{"process:1:posix_spawn"}));
  // A macro that hides the call, or an alias of std.
  EXPECT_EQ(Cpu("#define RUN system\nRUN(\"ls\");"), (Expected{"process:1:system"}));
  EXPECT_EQ(Cpu("#define CALL(f) f\nint r = CALL(system)(\"ls\");"),
            (Expected{"process:2:system"}));
  EXPECT_EQ(Cpu("#define S std\nint r = S::system(\"ls\");"), (Expected{"process:2:system"}));
  EXPECT_EQ(Cpu("namespace a { using namespace std; }\nint r = a::system(\"ls\");"),
            (Expected{"process:2:system"}));
}

TEST(LintProcessTest, LeavesNearMissesAlone) {
  EXPECT_EQ(Cpu("int system = 3; system += 1; int clone = 2; bool kill = false;"), kClean);
  EXPECT_EQ(Cpu("t.clone(); p->fork(); obj.system(1);"), kClean);
  EXPECT_EQ(Cpu("my_fork(); forked(); abort(); raise(SIGABRT); exit(1);"), kClean);
  EXPECT_EQ(Cpu("// we never fork() here\nconst char* s = \"system(1)\";"), kClean);
  EXPECT_EQ(Cpu("thrust::system::cuda::par; mylib::clone(x);"), kClean);
  // In a #define, prose-like text is not a use.
  EXPECT_EQ(Cpu("#define REQUIRE(v) MSG(needs at least v, not system v)\n"), kClean);
}

TEST(LintNetworkTest, Flags) {
  EXPECT_EQ(Cpu("int fd = socket(AF_INET, SOCK_STREAM, 0);\nconnect(fd, a, n);"),
            (Expected{"network:1:socket", "network:2:connect"}));
  EXPECT_EQ(Cpu("bind(fd, a, n); ::bind(fd, a, n); listen(fd, 1); accept(fd, 0, 0);"),
            (Expected{"network:1:bind", "network:1:bind", "network:1:listen", "network:1:accept"}));
  EXPECT_EQ(Cpu("getaddrinfo(h, p, 0, &r);"), (Expected{"network:1:getaddrinfo"}));
  EXPECT_EQ(Cpu("sendto(fd, b, n, 0, a, l); recvfrom(fd, b, n, 0, a, &l);"),
            (Expected{"network:1:sendto", "network:1:recvfrom"}));
  EXPECT_EQ(Cpu("#include <curl/curl.h>\nauto* c = curl_easy_init();"),
            (Expected{"network:1:#include <curl/curl.h>", "network:2:curl_easy_init"}));
}

TEST(LintNetworkTest, LeavesNearMissesAlone) {
  EXPECT_EQ(Cpu("auto g = std::bind(f, 1);"), kClean);
  EXPECT_EQ(Cpu("sig.connect(slot); srv->listen(3); int socket_count = 0; int socket = 1;"),
            kClean);
  EXPECT_EQ(Cpu("float curl_x = 0; float curl = curl_x;"), kClean);
}

TEST(LintFileTest, Flags) {
  EXPECT_EQ(Cpu("void f() {\n  FILE* f = fopen(\"/etc/passwd\", \"r\");\n}"),
            (Expected{"file:2:FILE", "file:2:fopen"}));
  EXPECT_EQ(Cpu("std::FILE *f = std::fopen(\"x\", \"r\");"),
            (Expected{"file:1:FILE", "file:1:fopen"}));
  EXPECT_EQ(Cpu("std::ifstream in(\"x\");"), (Expected{"file:1:ifstream"}));
  EXPECT_EQ(Cpu("using namespace std;\nofstream out(\"x\");"), (Expected{"file:2:ofstream"}));
  EXPECT_EQ(Cpu("bool e = std::filesystem::exists(\"x\");"), (Expected{"file:1:std::filesystem"}));
  EXPECT_EQ(Cpu("namespace fs = std::filesystem;"), (Expected{"file:1:std::filesystem"}));
  EXPECT_EQ(Cpu("int fd = open(\"/x\", O_RDONLY);"), (Expected{"file:1:open"}));
  EXPECT_EQ(Cpu("int fd = ::open(\"/x\", O_RDONLY);"), (Expected{"file:1:open"}));
  EXPECT_EQ(Cpu("struct stat st;\nstat(\"/x\", &st);"), (Expected{"file:2:stat"}));
  EXPECT_EQ(Cpu("if (access(\"/x\", 0) == 0) unlink(\"/x\");"),
            (Expected{"file:1:access", "file:1:unlink"}));
  EXPECT_EQ(Cpu("#define OPEN fopen\nOPEN(\"x\", \"r\");"), (Expected{"file:1:fopen"}));
  EXPECT_EQ(Cpu("int fd = openat(AT_FDCWD, \"x\", 0); DIR* d = opendir(\".\");"),
            (Expected{"file:1:openat", "file:1:opendir"}));
  // A line splice in the middle of the name.
  EXPECT_EQ(Cpu("void f() {\n  fo\\\npen(\"x\", \"r\");\n}"), (Expected{"file:2:fopen"}));
}

TEST(LintFileTest, LeavesNearMissesAlone) {
  EXPECT_EQ(Cpu("myfopen(x); fopen_count++; int open_files = 0;"), kClean);
  EXPECT_EQ(Cpu("x.open(y); p->open(z); s.stat(); q->access(1);"), kClean);
  EXPECT_EQ(Cpu("// never call fopen\n/* or open(\"x\") */\nint a = 1;"), kClean);
  EXPECT_EQ(Cpu("const char* s = \"fopen\"; const char* r = R\"(open(x))\";"), kClean);
  EXPECT_EQ(Cpu("mylib::open(x); Tile<4>::access(3);"), kClean);
  EXPECT_EQ(Cpu("int stat = 0, access = 1, rename = 2, mkdir = 3;"), kClean);
  // Declarations with direct initialization are not calls.
  EXPECT_EQ(Cpu("Welford stat(0.f); float signal(x[i]); Mask open(3);"), kClean);
  // ...but a keyword or a macro before the name does not make it one.
  EXPECT_EQ(Cpu("#define R return\nint f() { R open(\"x\", 0); }"), (Expected{"file:2:open"}));
  EXPECT_EQ(Cpu("printf(\"%d\\n\", 1); fprintf(stderr, \"x\"); puts(\"y\"); fflush(stdout);"),
            kClean);
  EXPECT_EQ(Cpu("int FILE_COUNT = 0; struct FILEINFO* p;"), kClean);
}

TEST(LintEnvironmentTest, Flags) {
  EXPECT_EQ(Cpu("const char* h = getenv(\"HOME\");"), (Expected{"environment:1:getenv"}));
  EXPECT_EQ(Cpu("auto* h = std::getenv(\"HOME\");"), (Expected{"environment:1:getenv"}));
  EXPECT_EQ(Cpu("extern char** environ;\nsetenv(\"A\", \"1\", 1);"),
            (Expected{"environment:1:environ", "environment:2:setenv"}));
  EXPECT_EQ(
      Cpu("secure_getenv(\"X\"); putenv(s); unsetenv(\"Y\");"),
      (Expected{"environment:1:secure_getenv", "environment:1:putenv", "environment:1:unsetenv"}));
}

TEST(LintEnvironmentTest, LeavesNearMissesAlone) {
  EXPECT_EQ(Cpu("int env = 0; my_getenv(); cfg.getenv(); const char* s = \"getenv\";"), kClean);
}

TEST(LintDynamicLoadingTest, Flags) {
  EXPECT_EQ(Cpu("#include <dlfcn.h>\nvoid* h = dlopen(\"libcublas.so\", RTLD_NOW);\n"
                "auto* f = dlsym(h, \"cublasSgemm_v2\");"),
            (Expected{"dynamic-loading:1:#include <dlfcn.h>", "dynamic-loading:2:dlopen",
                      "dynamic-loading:3:dlsym"}));
  EXPECT_EQ(Cpu("#include <link.h>\nint r = dl_iterate_phdr(cb, 0);"),
            (Expected{"dynamic-loading:1:#include <link.h>", "dynamic-loading:2:dl_iterate_phdr"}));
  EXPECT_EQ(Cuda("cuGetProcAddress(\"cuMemcpy\", &p, 12000, 0, 0);"),
            (Expected{"dynamic-loading:1:cuGetProcAddress"}));
  EXPECT_EQ(Cuda("cudaGetDriverEntryPoint(\"cuLaunchKernel\", &p, 0);"),
            (Expected{"dynamic-loading:1:cudaGetDriverEntryPoint"}));
  EXPECT_EQ(
      Cuda("nvrtcCreateProgram(&p, src, 0, 0, 0, 0); cuModuleLoadData(&m, ptx);"),
      (Expected{"dynamic-loading:1:nvrtcCreateProgram", "dynamic-loading:1:cuModuleLoadData"}));
  EXPECT_EQ(Cpu("extern char _GLOBAL_OFFSET_TABLE_[];"),
            (Expected{"dynamic-loading:1:_GLOBAL_OFFSET_TABLE_"}));
}

TEST(LintDynamicLoadingTest, LeavesNearMissesAlone) {
  EXPECT_EQ(Cpu("// dlopen is not needed\nint dl = 0; mydlsym(); loader.dlopen();"), kClean);
  EXPECT_EQ(Cpu("#include \"my_link.h\"\n#include <linkage.h>\n"), kClean);
}

TEST(LintMemoryProtectionTest, Flags) {
  EXPECT_EQ(Cpu("mprotect(p, 4096, PROT_READ | PROT_EXEC);"),
            (Expected{"memory-protection:1:mprotect", "memory-protection:1:PROT_EXEC"}));
  EXPECT_EQ(Cpu("void* p = mmap(0, n, PROT_READ | PROT_WRITE | PROT_EXEC,\n"
                "               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);"),
            (Expected{"memory-protection:1:PROT_EXEC"}));
  EXPECT_EQ(Cpu("pkey_mprotect(p, n, PROT_READ, k);"),
            (Expected{"memory-protection:1:pkey_mprotect"}));
}

TEST(LintMemoryProtectionTest, LeavesAnonymousMmapAlone) {
  EXPECT_EQ(Cpu("#include <sys/mman.h>\n"
                "void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,"
                " -1, 0);\nmunmap(p, n); madvise(p, n, MADV_HUGEPAGE);"),
            kClean);
}

TEST(LintTimingTest, Flags) {
  EXPECT_EQ(Cpu("timespec ts;\nclock_gettime(CLOCK_MONOTONIC, &ts);"),
            (Expected{"timing:2:clock_gettime"}));
  EXPECT_EQ(Cpu("gettimeofday(&tv, 0);"), (Expected{"timing:1:gettimeofday"}));
  EXPECT_EQ(Cpu("double t0 = omp_get_wtime();"), (Expected{"timing:1:omp_get_wtime"}));
  EXPECT_EQ(Cpu("auto t0 = std::chrono::steady_clock::now();"), (Expected{"timing:1:std::chrono"}));
  EXPECT_EQ(Cpu("using namespace std;\nauto t0 = chrono::steady_clock::now();"),
            (Expected{"timing:2:chrono::"}));
  EXPECT_EQ(Cpu("#define CH chrono\nauto t0 = std::CH::steady_clock::now();"),
            (Expected{"timing:1:chrono::"}));
  EXPECT_EQ(Cpu("unsigned long long c = __rdtsc(); c += __builtin_ia32_rdtsc();"),
            (Expected{"timing:1:__rdtsc", "timing:1:__builtin_ia32_rdtsc"}));
  EXPECT_EQ(Cuda("cudaEvent_t a;\ncudaEventCreate(&a);\ncudaEventRecord(a, s);\n"
                 "cudaEventElapsedTime(&ms, a, b);"),
            (Expected{"timing:1:cudaEvent_t", "timing:2:cudaEventCreate",
                      "timing:3:cudaEventRecord", "timing:4:cudaEventElapsedTime"}));
  EXPECT_EQ(Cuda("cuEventCreate(&e, 0);"), (Expected{"timing:1:cuEventCreate"}));
  EXPECT_EQ(Cuda("#include <cupti.h>\n#include <nvtx3/nvToolsExt.h>\n"
                 "#include <cuda_profiler_api.h>\nnvtxRangePushA(\"x\"); cudaProfilerStart();"),
            (Expected{"timing:1:#include <cupti.h>", "timing:2:#include <nvtx3/nvToolsExt.h>",
                      "timing:3:#include <cuda_profiler_api.h>", "timing:4:nvtxRangePushA",
                      "timing:4:cudaProfilerStart"}));
}

TEST(LintTimingTest, LeavesDeviceClocksAndNearMissesAlone) {
  EXPECT_EQ(Cuda("__global__ void k(long long* t) {\n"
                 "  t[0] = clock64();\n  t[1] = clock();\n}\n"),
            kClean);
  EXPECT_EQ(Cpu("int chrono_count = 0; timer.chrono(); my_rdtsc_model();"), kClean);
}

TEST(LintStreamTest, Flags) {
  EXPECT_EQ(Cuda("static cudaStream_t s;\ncudaStreamCreate(&s);"),
            (Expected{"stream:2:cudaStreamCreate"}));
  EXPECT_EQ(Cuda("cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);"),
            (Expected{"stream:1:cudaStreamCreateWithFlags"}));
  EXPECT_EQ(Cuda("cudaStreamBeginCapture(st, m);\ncudaGraphLaunch(g, st);"),
            (Expected{"stream:1:cudaStreamBeginCapture", "stream:2:cudaGraphLaunch"}));
  EXPECT_EQ(Cuda("k<<<1, 1, 0, cudaStreamPerThread>>>();"),
            (Expected{"stream:1:cudaStreamPerThread"}));
  EXPECT_EQ(Cuda("cudaLaunchHostFunc(st, f, 0); cudaSetDevice(1);"),
            (Expected{"stream:1:cudaLaunchHostFunc", "stream:1:cudaSetDevice"}));
}

TEST(LintStreamTest, LeavesTheGivenStreamAlone) {
  EXPECT_EQ(Cuda("cudaStream_t s = static_cast<cudaStream_t>(args->stream);\n"
                 "k<<<g, b, 0, s>>>(x);\ncudaStreamSynchronize(s); cudaDeviceSynchronize();\n"
                 "cudaMemsetAsync(p, 0, n, s); cudaGetLastError();"),
            kClean);
}

TEST(LintDeviceContextTest, Flags) {
  EXPECT_EQ(Cuda("cudaDeviceReset();\ncudaIpcOpenMemHandle(&p, h, 0);\ncuCtxCreate(&c, 0, d);"),
            (Expected{"device-context:1:cudaDeviceReset", "device-context:2:cudaIpcOpenMemHandle",
                      "device-context:3:cuCtxCreate"}));
}

TEST(LintDeviceContextTest, LeavesDeviceQueriesAlone) {
  EXPECT_EQ(Cuda("int d; cudaGetDevice(&d);\n"
                 "cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, d);\n"
                 "cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 16);"),
            kClean);
}

TEST(LintLibraryTest, Flags) {
  EXPECT_EQ(Cuda("#include <cublas_v2.h>\ncublasHandle_t h;\ncublasSgemm(h, a, b);"),
            (Expected{"library:1:#include <cublas_v2.h>", "library:2:cublasHandle_t",
                      "library:3:cublasSgemm"}));
  EXPECT_EQ(Cuda("#include <cublasLt.h>\n#include <cudnn.h>\n#include <cufft.h>\n"
                 "#include <curand.h>\n#include \"cusparse.h\"\n"),
            (Expected{"library:1:#include <cublasLt.h>", "library:2:#include <cudnn.h>",
                      "library:3:#include <cufft.h>", "library:4:#include <curand.h>",
                      "library:5:#include \"cusparse.h\""}));
  EXPECT_EQ(
      Cpu("#include <torch/extension.h>\nat::Tensor t = torch::zeros({3});"),
      (Expected{"library:1:#include <torch/extension.h>", "library:2:at::", "library:2:torch::"}));
  EXPECT_EQ(
      Cpu("#include <ATen/ATen.h>\n#include <c10/core/Scalar.h>\n"),
      (Expected{"library:1:#include <ATen/ATen.h>", "library:2:#include <c10/core/Scalar.h>"}));
  EXPECT_EQ(Cpu("#include <cblas.h>\ncblas_sgemm(CblasRowMajor, a, b);"),
            (Expected{"library:1:#include <cblas.h>", "library:2:cblas_sgemm"}));
  EXPECT_EQ(
      Cpu("#include <mkl.h>\nsgemm_(&ta, &tb, &m);\nLAPACKE_sgesv(1);"),
      (Expected{"library:1:#include <mkl.h>", "library:2:sgemm_", "library:3:LAPACKE_sgesv"}));
  EXPECT_EQ(Cuda("curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);"),
            (Expected{"library:1:curandCreateGenerator"}));
  // A header named through a macro.
  EXPECT_EQ(Cuda("#define H \"cublas_v2.h\"\n#include H\n"),
            (Expected{"library:1:\"cublas_v2.h\""}));
}

TEST(LintLibraryTest, LeavesHeaderOnlyLibrariesAlone) {
  EXPECT_EQ(Cuda("#include <curand_kernel.h>\n"
                 "__device__ float r(curandState* s) { return curand_uniform(s); }\n"
                 "__global__ void k(curandState* s) { curand_init(1, threadIdx.x, 0, s); }\n"),
            kClean);
  EXPECT_EQ(Cuda("#include <cub/cub.cuh>\n#include <thrust/sort.h>\n#include <cuda/std/atomic>\n"
                 "#include <cute/tensor.hpp>\n#include <cutlass/gemm/device/gemm.h>\n"
                 "#include <cooperative_groups.h>\n#include <mma.h>\n#include <cuda_fp16.h>\n"
                 "#include <cuda_bf16.h>\nnamespace cg = cooperative_groups;\n"
                 "using namespace nvcuda;\nusing Gemm = cutlass::gemm::device::Gemm<float>;\n"),
            kClean);
  EXPECT_EQ(Cpu("namespace that { int x; }\nint y = that::x; int z = v.at(3); auto w = m.at(k);"),
            kClean);
}

TEST(LintSignalTest, Flags) {
  EXPECT_EQ(Cpu("signal(SIGALRM, on_alarm);\nalarm(1);"),
            (Expected{"signal:1:signal", "signal:2:alarm"}));
  EXPECT_EQ(
      Cpu("struct sigaction sa;\nsigaction(SIGPROF, &sa, 0);\nsetitimer(ITIMER_PROF, &t, 0);"),
      (Expected{"signal:1:sigaction", "signal:2:sigaction", "signal:3:setitimer"}));
  EXPECT_EQ(Cpu("std::signal(SIGINT, h); timer_create(CLOCK_MONOTONIC, &ev, &t);"),
            (Expected{"signal:1:signal", "signal:1:timer_create"}));
}

TEST(LintSignalTest, LeavesNearMissesAlone) {
  EXPECT_EQ(Cpu("float signal = x[i]; y[i] = signal * 2; raise(SIGABRT); abort();"), kClean);
  EXPECT_EQ(Cpu("int alarm_count = 0; dsp.signal(3);"), kClean);
}

TEST(LintLoadTimeCodeTest, Flags) {
  EXPECT_EQ(Cpu("__attribute__((constructor)) static void early() {}"),
            (Expected{"load-time-code:1:__attribute__((constructor))"}));
  EXPECT_EQ(Cpu("static void __attribute__ ((constructor(101))) early() {}"),
            (Expected{"load-time-code:1:__attribute__((constructor))"}));
  EXPECT_EQ(Cpu("[[gnu::constructor]] void early() {}\n[[gnu::destructor]] void late() {}"),
            (Expected{"load-time-code:1:[[constructor]]", "load-time-code:2:[[destructor]]"}));
  EXPECT_EQ(Cpu("__attribute__((section(\".init_array\"))) void (*p)() = early;"),
            (Expected{"load-time-code:1:__attribute__((section))"}));
  EXPECT_EQ(Cpu("extern \"C\" void _init() {}\nextern \"C\" void _fini() {}"),
            (Expected{"load-time-code:1:_init", "load-time-code:2:_fini"}));
}

TEST(LintLoadTimeCodeTest, LeavesOtherAttributesAlone) {
  EXPECT_EQ(Cpu("__attribute__((aligned(64))) static float buf[16];\n"
                "struct S { S() {} ~S() {} };\nint constructor_count = 0;\n"
                "__attribute__((target_clones(\"avx2\", \"default\"))) int f() { return 1; }\n"
                "[[nodiscard]] int g(); [[maybe_unused]] int h;\n"),
            kClean);
}

TEST(LintSyscallTest, Flags) {
  EXPECT_EQ(Cpu("#include <sys/syscall.h>\nlong r = syscall(SYS_getpid);\nint n = __NR_write;"),
            (Expected{"syscall:1:#include <sys/syscall.h>", "syscall:2:syscall",
                      "syscall:2:SYS_getpid", "syscall:3:__NR_write"}));
}

TEST(LintSyscallTest, LeavesNearMissesAlone) {
  EXPECT_EQ(Cpu("const int SYS_SIZE = 4; int my_syscall_count = 0; os.syscall();"), kClean);
}

TEST(LintSandboxTest, Flags) {
  EXPECT_EQ(Cpu("prctl(PR_SET_DUMPABLE, 1);\nsetrlimit(RLIMIT_AS, &r);\nunshare(0);"),
            (Expected{"sandbox:1:prctl", "sandbox:2:setrlimit", "sandbox:3:unshare"}));
}

TEST(LintSandboxTest, LeavesReadsAlone) {
  EXPECT_EQ(Cpu("getrlimit(RLIMIT_STACK, &r); int mount_point = 0; sysconf(_SC_NPROCESSORS_ONLN);"),
            kClean);
}

// -------------------------------------------------------------- inline asm

TEST(LintInlineAsmTest, PtxInDeviceCodeIsClean) {
  EXPECT_EQ(Cuda("__global__ void k(unsigned* out) {\n"
                 "  unsigned lane;\n"
                 "  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
                 "  out[threadIdx.x] = lane;\n"
                 "}\n"),
            kClean);
  EXPECT_EQ(Cuda("template <int N>\n"
                 "__device__ __forceinline__ void wait_group() {\n"
                 "  auto f = [] { asm volatile(\"cp.async.wait_group %0;\" ::\"n\"(N)); };\n"
                 "  if (N > 0) {\n"
                 "    { __asm__ __volatile__(\"cp.async.commit_group;\"); }\n"
                 "  }\n"
                 "  f();\n"
                 "}\n"),
            kClean);
  EXPECT_EQ(Cuda("extern \"C\" {\n__global__ void k() { asm(\"exit;\"); }\n}\n"), kClean);
  EXPECT_EQ(Cuda("namespace a { namespace b {\n"
                 "__device__ unsigned lane() { unsigned r; asm(\"mov.u32 %0, %%laneid;\" : "
                 "\"=r\"(r)); return r; }\n"
                 "} }\n"),
            kClean);
  EXPECT_EQ(Cuda("extern \"C\" __global__ void k() { asm(\"exit;\"); }"), kClean);
  EXPECT_EQ(Cuda("template <int kD, int TR>\nstruct Tile {\n"
                 "  static __device__ __forceinline__ int q(int r) { asm(\"nop;\"); return r; }\n"
                 "};\n"),
            kClean);
  EXPECT_EQ(Cuda("__global__ void __launch_bounds__(256, 2) k(float* x) { asm(\"nop;\"); }"),
            kClean);
}

TEST(LintInlineAsmTest, HostAsmIsFlagged) {
  EXPECT_EQ(Cuda("__global__ void k() {}\n"
                 "void host() {\n"
                 "  asm volatile(\"rdtsc\" ::: \"eax\", \"edx\");\n"
                 "}\n"),
            (Expected{"inline-asm:3:asm"}));
  EXPECT_EQ(Cpu("void f() { __asm__(\"nop\"); }\nvoid g() { __asm(\"nop\"); }"),
            (Expected{"inline-asm:1:__asm__", "inline-asm:2:__asm"}));
  // In a .cpp source every asm is host code, device specifiers or not.
  EXPECT_EQ(Cpu("__device__ void d() { asm(\"nop\"); }"), (Expected{"inline-asm:1:asm"}));
  EXPECT_EQ(Cuda("asm(\".section .init_array\");"), (Expected{"inline-asm:1:asm"}));
  EXPECT_EQ(Cuda("int x = 0;\nregister long sp asm(\"rsp\");"), (Expected{"inline-asm:2:asm"}));
}

TEST(LintInlineAsmTest, HostDeviceFunctionsNeedACudaArchGuard) {
  // A __host__ __device__ body is compiled for the host too.
  EXPECT_EQ(Cuda("__host__ __device__ void hd() { asm(\"rdtsc\"); }"),
            (Expected{"inline-asm:1:asm"}));
  EXPECT_EQ(Cuda("__host__ __device__ unsigned lane() {\n"
                 "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
                 "  unsigned r; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r;\n"
                 "#else\n"
                 "  return 0;\n"
                 "#endif\n"
                 "}\n"),
            kClean);
  EXPECT_EQ(Cuda("__host__ __device__ void f() {\n#ifndef __CUDA_ARCH__\n  asm(\"rdtsc\");\n"
                 "#else\n  asm(\"nop;\");\n#endif\n}\n"),
            (Expected{"inline-asm:3:asm"}));
  // True on the host, where __CUDA_ARCH__ reads as 0.
  EXPECT_EQ(Cuda("__host__ __device__ void f() {\n#if __CUDA_ARCH__ < 900\n  asm(\"rdtsc\");\n"
                 "#endif\n}\n"),
            (Expected{"inline-asm:3:asm"}));
}

TEST(LintInlineAsmTest, MacrosThatHideWhatIsDeviceCode) {
  // A trusted object-like macro for the specifiers.
  EXPECT_EQ(Cuda("#define DEVICE_INLINE __device__ __forceinline__\n"
                 "DEVICE_INLINE void f() { asm(\"nop;\"); }\n"),
            kClean);
  // An asm macro counts where it is used.
  EXPECT_EQ(Cuda("#define COMMIT() asm volatile(\"cp.async.commit_group;\\n\" ::)\n"
                 "__device__ void f() { COMMIT(); }\n"),
            kClean);
  EXPECT_EQ(Cuda("#define COMMIT() asm volatile(\"rdtsc\" ::)\n"
                 "void host() { COMMIT(); }\n"),
            (Expected{"inline-asm:2:asm in macro COMMIT"}));
  // Redefining a specifier: nothing is trusted to be device code.
  EXPECT_EQ(Cuda("#define __device__\n__device__ void f() { asm(\"rdtsc\"); }\n"),
            (Expected{"inline-asm:2:asm"}));
  // A macro with an unbalanced brace can make a host function look nested.
  EXPECT_EQ(Cuda("#define END }\n__device__ void d() { END void host() { asm(\"rdtsc\"); }\n"),
            (Expected{"inline-asm:2:asm"}));
}

TEST(LintInlineAsmTest, ConditionalBracesAreNotTrusted) {
  // With NEVER undefined, host() is a host function; the branch hides a '{'.
  EXPECT_EQ(Cuda("#ifdef NEVER\n__device__ void d() {\n#endif\n"
                 "void host() { asm(\"rdtsc\"); }\n"),
            (Expected{"inline-asm:4:asm"}));
  // A header cut by a conditional may be a host header.
  EXPECT_EQ(Cuda("#ifdef NEVER\n__device__\n#endif\nvoid f() { asm(\"rdtsc\"); }\n"),
            (Expected{"inline-asm:4:asm"}));
  // A branch that closes a body opened before it.
  EXPECT_EQ(Cuda("void h() {\n#if A\n} __device__ void d() {\n#endif\n  asm(\"rdtsc\");\n}\n"),
            (Expected{"inline-asm:5:asm"}));
  // Balanced branches are fine.
  EXPECT_EQ(Cuda("#ifdef FAST\n__device__ void f() { asm(\"nop;\"); }\n#else\n"
                 "__device__ void f() {}\n#endif\n"
                 "__global__ void k() {\n#if __CUDA_ARCH__ >= 900\n  asm(\"nop;\");\n#endif\n}\n"),
            kClean);
}

TEST(LintInlineAsmTest, InitializersAreNotDeviceFunctions) {
  // A lambda in a __device__ variable's initializer is host code.
  EXPECT_EQ(Cuda("__device__ auto f = [] { asm(\"rdtsc\"); };"), (Expected{"inline-asm:1:asm"}));
  // A class local to a device function has its own specifiers.
  EXPECT_EQ(Cuda("__device__ void d() {\n  struct L { static void h() { asm(\"rdtsc\"); } };\n}\n"),
            (Expected{"inline-asm:2:asm"}));
  // Operators are functions, not initializers.
  EXPECT_EQ(Cuda("struct V { __device__ V& operator=(const V& o) { asm(\"nop;\"); return *this; }"
                 " };"),
            kClean);
}

TEST(LintInlineAsmTest, MacrosCannotSplitOrCloseAFunction) {
  // A macro that expands to ';' ends the __device__ declaration before host().
  EXPECT_EQ(Cuda("#define SEMI ;\n__device__ int x SEMI void host() { asm(\"rdtsc\"); }\n"),
            (Expected{"inline-asm:2:asm"}));
  EXPECT_EQ(Cuda("#define SEMI() ;\n__device__ int x SEMI() void host() { asm(\"rdtsc\"); }\n"),
            (Expected{"inline-asm:2:asm"}));
  // Balanced, but closes the device body and opens a host one where it is used.
  EXPECT_EQ(Cuda("#define SWAP } void host() {\n__device__ void d() { SWAP asm(\"rdtsc\"); }\n"),
            (Expected{"inline-asm:2:asm"}));
  // A macro chain still carries its asm to where it is used.
  EXPECT_EQ(Cuda("#define A asm\n#define B A volatile(\"rdtsc\")\nvoid host() { B; }\n"),
            (Expected{"inline-asm:3:asm in macro B"}));
  // Token pasting can name an asm macro invisibly: asm in a macro counts where it is written.
  EXPECT_EQ(Cuda("#define CAT(a, b) a##b\n#define PTX asm(\"rdtsc\")\n"
                 "void host() { CAT(P, TX); }\n"),
            (Expected{"inline-asm:2:asm"}));
}

TEST(LintInlineAsmTest, InitializersWithLambdasAreHostCode) {
  EXPECT_EQ(Cuda("__device__ void (*fp)() {[] { asm(\"rdtsc\"); }};"),
            (Expected{"inline-asm:1:asm"}));
  EXPECT_EQ(Cuda("__device__ S s({+[] { asm(\"rdtsc\"); }});"), (Expected{"inline-asm:1:asm"}));
  EXPECT_EQ(Cuda("__device__ S s(1, [] { asm(\"rdtsc\"); });"), (Expected{"inline-asm:1:asm"}));
}

TEST(LintLibraryTest, HeadersNamedByMacros) {
  EXPECT_EQ(Cpu("#define H <dlfcn.h>\n#include H\n"), (Expected{"dynamic-loading:1:<dlfcn.h>"}));
  EXPECT_EQ(Cuda("#if __has_include(<cublas_v2.h>)\n#endif\n"), (Expected{"library:1:cublas_v2"}));
}

// ------------------------------------------------------- reading the text

TEST(LintTextTest, LineNumbersSurviveCommentsStringsAndSplices) {
  const char* src =
      "/* a comment\n"
      "   over two lines with fopen */\n"
      "const char* s = R\"x(\n"
      "fopen(\"inside a raw string\")\n"
      ")x\";\n"
      "#define LONG_MACRO(a) \\\n"
      "  (a + 1)\n"
      "int c = '\"'; // a quote in a character\n"
      "int d = 1'000'000;\n"
      "void f() { getenv(\"X\"); }\n";
  EXPECT_EQ(Cpu(src), (Expected{"environment:10:getenv"}));
}

TEST(LintTextTest, PrefixedStringsAndDigraphs) {
  EXPECT_EQ(Cpu("auto a = u8\"fopen\"; auto b = L\"open(1)\"; auto c = uR\"(system(1))\";"),
            kClean);
  EXPECT_EQ(Cpu("%:include <dlfcn.h>\n"), (Expected{"dynamic-loading:1:#include <dlfcn.h>"}));
  // A raw string's closing delimiter may not be made by a splice.
  EXPECT_EQ(Cpu("auto s = R\"(a)\\\n\";\nfopen(\"x\", \"r\");\n)\";"), kClean);
}

TEST(LintTextTest, ErrorDirectivesAreProse) {
  EXPECT_EQ(Cpu("#error this kernel must not call system() or fork()\n"), kClean);
}

TEST(LintTextTest, ArbitraryInputNeverBreaksIt) {
  const std::vector<std::string> cases = {
      "",
      "/*",
      "/* never closed fopen(",
      "\"never closed fopen(",
      "R\"delim(never closed",
      "R\"",
      "'",
      "u8",
      "#",
      "#include",
      "#include <",
      "#include \"",
      "#define",
      "#define X(",
      "#if\n#elif\n#else\n#endif\n#endif\n#else",
      "}}}}{{{",
      "__global__ void k() {",
      "asm",
      "::",
      "std::",
      "\\",
      "a\\\n",
      "%:%:<%%><::>",
      "[[",
      "__attribute__((",
      std::string("a\0b fopen(\0", 11),
  };
  for (const std::string& c : cases) {
    for (bool cuda : {false, true}) {
      const std::vector<LintFinding> f = Lint(c, cuda);
      for (const LintFinding& x : f) EXPECT_TRUE(IsLintRule(x.rule)) << c;
    }
  }
  // Random bytes, and random mixes of the characters the lexer cares about.
  std::mt19937 rng(12345);
  const std::string alphabet = "{}()[]<>;:#%\"'\\/*\n \tRu8Lasm_devicglobal__fopen";
  for (int round = 0; round < 400; ++round) {
    std::string s(rng() % 300, '\0');
    for (char& ch : s)
      ch = round % 2 ? static_cast<char>(rng() & 0xff) : alphabet[rng() % alphabet.size()];
    const std::vector<LintFinding> f = Lint(s, round % 4 < 2);
    for (const LintFinding& x : f) {
      EXPECT_TRUE(IsLintRule(x.rule));
      EXPECT_GE(x.line, 1);
    }
  }
}

// Hostile inputs must not make the lint slow: the search lints every
// candidate, and a candidate's text is chosen by whoever wrote it.
TEST(LintTextTest, PathologicalInputsStayFast) {
  const int n = 100000;
  std::string attrs, nest, macros, ifs;
  for (int i = 0; i < n; ++i) attrs += "__attribute__(( ";
  for (int i = 0; i < n; ++i) nest += "namespace a { ";
  for (int i = 0; i < n / 10; ++i) nest += "using namespace std; ";
  for (int i = 0; i < n / 10; ++i)
    macros += "#define M" + std::to_string(i + 1) + " M" + std::to_string(i) + " M" +
              std::to_string(i) + "\n";
  macros += "#define M0 asm\n__device__ void f() { M" + std::to_string(n / 10) + "; }\n";
  for (int i = 0; i < n; ++i) ifs += "#ifdef __CUDA_ARCH__\nasm(\"nop;\");\n";
  for (const std::string* s : {&attrs, &nest, &macros, &ifs}) {
    const auto start = std::chrono::steady_clock::now();
    (void)Lint(*s, true);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  }
}

// ---------------------------------------------------- the project's code

using testing::SourceDir;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool IsSource(const fs::path& p) { return p.extension() == ".cpp" || p.extension() == ".cu"; }

// Every honest kernel the project ships: solutions, references, prompt
// examples, the known-correct candidates.
std::vector<fs::path> HonestSources() {
  const fs::path root = SourceDir();
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(root / "tasks")) {
    const fs::path& p = e.path();
    if (!e.is_regular_file() || !IsSource(p)) continue;
    if (p.parent_path().filename() == "solutions" || p.stem() == "reference") out.push_back(p);
  }
  for (const char* f :
       {"prompts/example_cpu.cpp", "prompts/example_cuda.cu", "tests/adversarial/cpu/correct.cpp",
        "tests/adversarial/cuda/correct.cu", "tests/integration/fixture_add/reference.cpp",
        "tests/integration/fixture_add/reference.cu"})
    out.push_back(root / f);
  const fs::path catalogue_tasks = root / "tests/adversarial/tasks";
  if (fs::is_directory(catalogue_tasks)) {
    for (const auto& e : fs::recursive_directory_iterator(catalogue_tasks))
      if (e.is_regular_file() && IsSource(e.path()) && e.path().stem() == "reference")
        out.push_back(e.path());
  }
  return out;
}

TEST(LintProjectTest, HonestKernelsAreClean) {
  const std::vector<fs::path> files = HonestSources();
  ASSERT_GE(files.size(), 20u) << "no sources found under " << SourceDir();
  int cuda = 0;
  for (const fs::path& p : files) {
    ASSERT_TRUE(fs::exists(p)) << p;
    const bool is_cuda = p.extension() == ".cu";
    cuda += is_cuda;
    for (const LintFinding& f : Lint(Slurp(p), is_cuda))
      ADD_FAILURE() << p.string() << ": " << DescribeFinding(f);
  }
  EXPECT_GE(cuda, 8);
}

TEST(LintProjectTest, KnownHacksAreFlagged) {
  const fs::path dir = SourceDir() / "tests/adversarial";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cpu/fork.cpp", "process"},        {"cpu/socket.cpp", "network"},
      {"cpu/read_file.cpp", "file"},      {"cpu/background_thread.cpp", "host-thread"},
      {"cuda/fork.cu", "process"},        {"cuda/socket.cu", "network"},
      {"cuda/read_file.cu", "file"},      {"cuda/side_stream.cu", "stream"},
      {"cuda/escaped_work.cu", "stream"},
  };
  for (const auto& [file, rule] : cases) {
    const fs::path p = dir / file;
    ASSERT_TRUE(fs::exists(p)) << p;
    bool found = false;
    for (const LintFinding& f : Lint(Slurp(p), p.extension() == ".cu")) found |= f.rule == rule;
    EXPECT_TRUE(found) << file << " should break rule '" << rule << "'";
  }
}

}  // namespace
}  // namespace hone

namespace hone {
namespace {

TEST(LintIntrospectionTest, FlagsTheHarnessesImageAndChannels) {
  const char* src =
      "#include <elf.h>\n"
      "void f(char* buf) {\n"
      "  void* ra = __builtin_return_address(0);\n"
      "  Elf64_Ehdr* h = nullptr;\n"
      "  read(3, buf, 8); write(4, buf, 8);\n"
      "}\n";
  EXPECT_EQ(
      Cpu(src),
      (Expected{"introspection:1:#include <elf.h>", "introspection:3:__builtin_return_address",
                "introspection:4:Elf64_Ehdr", "introspection:5:read", "introspection:5:write"}));
}

TEST(LintIntrospectionTest, DeviceFunctionsNamedReadOrWriteAreFine) {
  const char* src =
      "__device__ float read(const float* p, int i) { return p[i]; }\n"
      "__global__ void k(const float* p, float* o) { o[0] = read(p, 0); }\n"
      "void host(int fd, char* b) { read(fd, b, 1); }\n";
  LintOptions o;
  o.cuda = true;
  EXPECT_EQ(Summary(LintSource(src, o)), (Expected{"introspection:3:read"}));
}

TEST(LintIntrospectionTest, LeavesMembersAndOwnNamesAlone) {
  const char* src =
      "struct Buf { void write(int); int read() const; };\n"
      "void f(Buf& b, Buf* p) { b.write(1); p->read(); int reader = 0, close_enough = 1; }\n"
      "int pread = 0, edata = 1;\n";
  EXPECT_TRUE(Cpu(src).empty()) << ::testing::PrintToString(Cpu(src));
}

}  // namespace
}  // namespace hone
