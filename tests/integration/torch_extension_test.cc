// TorchExtensionBuilder on real plans: the oracle's side (hone_extbuild.py
// under a Python that imports torch) prepares a C++ extension as the
// installed torch's load_inline would, hone builds it (with the precompiled
// header where the compiler is gcc), Python imports the result, and the
// second build is a cache hit. Skipped when no Python here imports torch.
#include "build/torch_extension.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <sstream>
#include <thread>

#include "core/fs.h"
#include "core/subprocess.h"
#include "test_env.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

CommandResult RunPython(const std::string& python, const std::string& code,
                        std::vector<std::string> args = {}) {
  std::vector<std::string> argv = {python, "-c", code};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandOptions o;
  o.timeout = std::chrono::minutes(3);
  auto r = RunCommand(argv, o);
  return r.ok() ? *r : CommandResult{};
}

// HONE_PYTHON, else python3 on PATH, else /usr/bin/python3: the first that
// imports torch; "" when none does.
const std::string& TorchPython() {
  static const std::string found = [] {
    std::vector<std::string> candidates;
    if (const char* e = std::getenv("HONE_PYTHON"); e && *e) candidates.push_back(e);
    candidates.insert(candidates.end(), {"python3", "/usr/bin/python3"});
    for (const auto& py : candidates)
      if (RunPython(py, "import torch").succeeded()) return py;
    return std::string();
  }();
  return found;
}

// The last JSON object line of a Python's output (torch prints warnings).
json LastJson(const std::string& output) {
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line.front() == '{') last = line;
  return json::parse(last, nullptr, false);
}

// hone_extbuild.prepare through the oracle's Python, as the oracle runs it.
Result<TorchExtensionPlan> Prepare(const json& args, const fs::path& build_dir) {
  std::string code =
      "import sys, json; sys.path.insert(0, sys.argv[1]); import hone_extbuild; "
      "print(json.dumps(hone_extbuild.prepare('load_inline', "
      "json.loads(sys.argv[2]), sys.argv[3])))";
  CommandResult r =
      RunPython(TorchPython(), code,
                {(testing::SourceDir() / "python").string(), args.dump(), build_dir.string()});
  json reply = LastJson(r.output);
  if (!r.succeeded() || reply.is_discarded())
    return Status::Internal("prepare failed: " + r.output);
  return TorchExtensionPlanFromJson(reply);
}

// A fresh name per run: the first build of each test is cold.
std::string Nonce() {
  std::random_device rd;
  return std::to_string(rd()) + std::to_string(rd());
}

class TorchExtensionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TorchPython().empty())
      GTEST_SKIP() << "no Python here imports torch (install python3-torch, or set HONE_PYTHON)";
    work_ = MakeTempDir(testing::TestCache() / "tmp", "torch-ext-test").value();
  }
  void TearDown() override {
    if (!work_.empty()) fs::remove_all(work_);
  }
  // The persistent test cache: the precompiled header is built once for all
  // runs; the extensions' own sources are unique per run.
  fs::path Cache() { return testing::TestCache() / "torch-extensions"; }

  fs::path work_;
};

// One cold build, asked for by two threads at once (as two evaluations of
// one candidate would): one compiles, the other waits for it and takes its
// library; a third build is a cache hit, and Python imports the module.
// (One cold build serves both checks: each costs 15-20 s of a core.)
TEST_F(TorchExtensionTest, BuildsALoadableModuleOnceForTwoCallersAndCachesIt) {
  std::string nonce = Nonce();
  json args = {{"name", "hone_add_one"},
               {"cpp_sources",
                "// run " + nonce + "\ntorch::Tensor add_one(torch::Tensor x) { return x + 1; }"},
               {"functions", {"add_one"}}};
  auto plan = Prepare(args, work_ / "build");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // Waiting for the header (not building it in the background): the
  // header's use is checked below.
  TorchExtensionOptions waiting;
  waiting.header_in_background = false;
  TorchExtensionBuilder builder(Cache(), waiting);
  Result<BuildResult> a = Status::Internal("not run"), b = Status::Internal("not run");
  std::thread ta([&] { a = builder.Build(*plan); });
  std::thread tb([&] { b = builder.Build(*plan); });
  ta.join();
  tb.join();
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->ok && b->ok) << a->full_log << b->full_log;
  EXPECT_EQ(a->library, b->library);
  // One compiled; the other waited for it and took its library.
  ASSERT_NE(a->cached, b->cached) << "both built: " << a->cached << " " << b->cached;
  const BuildResult& cold = a->cached ? *b : *a;
  EXPECT_TRUE(fs::is_regular_file(cold.library));
  EXPECT_EQ(cold.library.parent_path().parent_path(), Cache());
  // gcc here: the C++ step used the precompiled header, and gcc took it.
  EXPECT_NE(cold.command.find("-Winvalid-pch"), std::string::npos) << cold.command;
  EXPECT_EQ(cold.full_log.find("not used because"), std::string::npos) << cold.full_log;
  // The log names the plan's folder, not the build's temporary copy.
  EXPECT_NE(cold.full_log.find((work_ / "build" / "main.cpp").string()), std::string::npos);
  EXPECT_EQ(cold.full_log.find((Cache() / "tmp" / "ext-").string()), std::string::npos);

  auto hit = builder.Build(*plan);
  ASSERT_TRUE(hit.ok());
  EXPECT_TRUE(hit->cached);
  EXPECT_TRUE(hit->ok);
  EXPECT_EQ(hit->library, cold.library);
  EXPECT_LT(hit->seconds, 0.5);
  std::cout << "[ timing   ] cold build " << cold.seconds << " s, cached " << hit->seconds * 1e3
            << " ms\n";

  std::string check =
      "import sys, torch, importlib.machinery, importlib.util\n"
      "loader = importlib.machinery.ExtensionFileLoader('hone_add_one', sys.argv[1])\n"
      "spec = importlib.util.spec_from_file_location('hone_add_one', sys.argv[1], "
      "loader=loader)\n"
      "m = importlib.util.module_from_spec(spec); loader.exec_module(m)\n"
      "print(m.add_one(torch.ones(3)).tolist())\n";
  CommandResult run = RunPython(TorchPython(), check, {cold.library.string()});
  EXPECT_TRUE(run.succeeded()) << run.output;
  EXPECT_NE(run.output.find("[2.0, 2.0, 2.0]"), std::string::npos) << run.output;
}

// The load_inline call of tests/adversarial/compat/broken_import.py, whose
// catalogue test builds the same extension (one failed build in the cache
// serves both; a cached failure keeps its log).
TEST_F(TorchExtensionTest, ACompileErrorIsAResultWithATrimmedLog) {
  json args = {{"name", "hone_compat_broken"},
               {"cpp_sources", "this is not C++;"},
               {"functions", {"nothing"}}};
  auto plan = Prepare(args, work_ / "build");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  TorchExtensionBuilder builder(Cache());
  auto r = builder.Build(*plan);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->ok);
  // main.cpp: line 1 is torch's #include, the source at 2, and the
  // binding of a function that never compiled at 4.
  EXPECT_NE(r->log.find("main.cpp:2:"), std::string::npos) << r->log;
  EXPECT_NE(r->log.find("main.cpp:4:"), std::string::npos) << r->log;
  EXPECT_NE(r->log.find("nothing"), std::string::npos) << r->log;
  EXPECT_NE(r->log.find("was not declared"), std::string::npos) << r->log;
  EXPECT_EQ(r->log.find("/tmp"), std::string::npos) << r->log;
  EXPECT_EQ(r->log.find("ext-"), std::string::npos) << r->log;
  auto again = builder.Build(*plan);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cached);
  EXPECT_FALSE(again->ok);
  EXPECT_EQ(again->log, r->log);
}

// nvcc on PATH or in /usr/local/cuda/bin; "" when neither runs.
const std::string& Nvcc() {
  static const std::string found = [] {
    for (std::string nvcc : {"nvcc", "/usr/local/cuda/bin/nvcc"}) {
      CommandOptions o;
      o.timeout = std::chrono::seconds(60);
      auto r = RunCommand({nvcc, "--version"}, o);
      if (r.ok() && r->succeeded()) return nvcc;
    }
    return std::string();
  }();
  return found;
}

// The plan of a C++-only load_inline with a CUDA source added as torch adds
// one (torch here has no CUDA, so the oracle cannot plan it): cuda.cu in the
// build folder, an nvcc step with the C++ step's defines and includes plus
// torch's nvcc flags, its object linked with the CUDA runtime.
TorchExtensionPlan WithCudaSource(TorchExtensionPlan plan, const std::string& cuda_source) {
  fs::path cu = plan.build_dir / "cuda.cu", obj = plan.build_dir / "cuda.cuda.o";
  EXPECT_TRUE(WriteFileAtomic(cu, cuda_source).ok());
  const TorchExtensionStep& cxx = plan.steps.front();
  TorchExtensionStep nvcc{
      "cuda.cuda.o",
      "nvcc",
      {Nvcc(), "--generate-dependencies-with-compile", "--dependency-output", "cuda.cuda.o.d"},
      {cu},
      {obj}};
  for (size_t i = 1; i < cxx.argv.size(); ++i) {
    const std::string& a = cxx.argv[i];
    if (a.rfind("-D", 0) == 0 || a.rfind("-std=", 0) == 0) nvcc.argv.push_back(a);
    if (a == "-isystem") nvcc.argv.insert(nvcc.argv.end(), {a, cxx.argv[i + 1]});
  }
  fs::path cuda_home = fs::path(Nvcc()).has_parent_path()
                           ? fs::path(Nvcc()).parent_path().parent_path()
                           : fs::path("/usr/local/cuda");
  nvcc.argv.insert(nvcc.argv.end(),
                   {"-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__",
                    "--expt-relaxed-constexpr", "-gencode=arch=compute_90,code=sm_90",
                    "--compiler-options", "'-fPIC'", "-isystem", (cuda_home / "include").string(),
                    "-c", cu.string(), "-o", "cuda.cuda.o"});
  TorchExtensionStep& link = plan.steps.back();
  link.argv.insert(link.argv.begin() + 2, "cuda.cuda.o");
  for (std::string a : std::vector<std::string>{"-L" + (cuda_home / "lib64").string(), "-lcudart",
                                                "-Wl,-rpath," + (cuda_home / "lib64").string()})
    link.argv.insert(link.argv.end() - 2, a);
  link.inputs.push_back(obj);
  plan.steps.insert(plan.steps.begin() + 1, nvcc);
  plan.with_cuda = true;
  return plan;
}

// The python check that imports a built module (every symbol resolved: the
// host half's launchers found in the device half) and prints `expr`.
CommandResult ImportAndPrint(const std::string& name, const fs::path& library,
                             const std::string& expr) {
  std::string code =
      "import sys, torch, importlib.machinery, importlib.util\n"
      "loader = importlib.machinery.ExtensionFileLoader(sys.argv[2], sys.argv[1])\n"
      "spec = importlib.util.spec_from_file_location(sys.argv[2], sys.argv[1], loader=loader)\n"
      "m = importlib.util.module_from_spec(spec); loader.exec_module(m)\n"
      "print(" +
      expr + ")\n";
  return RunPython(TorchPython(), code, {library.string(), name});
}

// A load_inline CUDA source as models write it: a plain kernel on the legacy
// stream, a template kernel under AT_DISPATCH, a __device__ helper and a
// shared constant. It builds as two halves (no nvcc pass over torch's
// headers), links, and imports.
TEST_F(TorchExtensionTest, ACudaSourceBuildsAsTwoHalvesThatLinkAndImport) {
  if (Nvcc().empty()) GTEST_SKIP() << "no nvcc here";
  std::string cuda = "// run " + Nonce() + R"(
#include <torch/extension.h>
const int kBlock = 256;
__device__ float twice(float v) { return 2.f * v; }
__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = twice(x[i]);
}
template <typename scalar_t>
__global__ void copy_kernel(const scalar_t* x, scalar_t* y, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
torch::Tensor scale(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int n = x.numel();
  scale_kernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "copy", ([&] {
    copy_kernel<scalar_t><<<1, kBlock>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
  }));
  return y;
}
)";
  json args = {{"name", "hone_split"},
               {"cpp_sources", "torch::Tensor scale(torch::Tensor x);\nint ready() { return 7; }"},
               {"functions", {"scale", "ready"}}};
  auto prepared = Prepare(args, work_ / "build");
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  TorchExtensionPlan plan = WithCudaSource(*prepared, cuda);
  TorchExtensionBuilder builder(Cache());
  auto r = builder.Build(plan);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->ok) << r->full_log;
  EXPECT_NE(r->full_log.find("split into halves"), std::string::npos) << r->full_log;
  EXPECT_NE(r->full_log.find("kernels: copy_kernel scale_kernel"), std::string::npos)
      << r->full_log;
  EXPECT_NE(r->full_log.find("cuda.hone_device.o"), std::string::npos) << r->full_log;
  // Both halves of C++ took the one precompiled header main.cpp uses.
  EXPECT_EQ(r->full_log.find("not used because"), std::string::npos) << r->full_log;
  std::cout << "[ timing   ] split CUDA build " << r->seconds << " s\n";
  CommandResult run = ImportAndPrint("hone_split", r->library, "m.ready()");
  EXPECT_TRUE(run.succeeded()) << run.output;
  EXPECT_NE(run.output.find("7"), std::string::npos) << run.output;
}

// What the split does not understand is built whole, as torch would, and the
// log says why.
TEST_F(TorchExtensionTest, ACudaSourceTheSplitDoesNotUnderstandIsBuiltWhole) {
  if (Nvcc().empty()) GTEST_SKIP() << "no nvcc here";
  std::string cuda = "// run " + Nonce() + R"(
#ifndef N
#define N 1
#endif
__global__ void k(float* y) { y[0] = N; }
void launch_it(float* y) { k<<<1, 1>>>(y); }
)";
  json args = {{"name", "hone_whole"},
               {"cpp_sources", "int ready() { return 8; }"},
               {"functions", {"ready"}}};
  auto prepared = Prepare(args, work_ / "build");
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  TorchExtensionBuilder builder(Cache());
  auto r = builder.Build(WithCudaSource(*prepared, cuda));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->ok) << r->full_log;
  EXPECT_NE(r->full_log.find("built whole: #ifndef at file level (line 2)"), std::string::npos)
      << r->full_log;
  CommandResult run = ImportAndPrint("hone_whole", r->library, "m.ready()");
  EXPECT_TRUE(run.succeeded()) << run.output;
}

}  // namespace
}  // namespace hone
