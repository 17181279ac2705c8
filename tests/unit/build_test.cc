#include <gtest/gtest.h>

#include <fstream>

#include "build/build_pool.h"
#include "build/compiler_builder.h"
#include "build/error_trim.h"
#include "build/ptxas_report.h"
#include "core/fs.h"
#include "cuda/cuda_compiler.h"

namespace hone {
namespace {

TEST(ErrorTrimTest, KeepsErrorsAndNamesTheCandidate) {
  std::string out =
      "In file included from /usr/include/x.h:1,\n"
      "/tmp/build-ab/cand.cpp: In function 'int hone_forward(const hone_args*)':\n"
      "/tmp/build-ab/cand.cpp:10:3: error: 'ouput' was not declared in this scope\n"
      "   10 |   ouput[i] = 1;\n"
      "      |   ^~~~~\n"
      "/tmp/build-ab/cand.cpp:12:1: warning: unused variable 'z'\n";
  std::string t = TrimCompilerOutput(out, "/tmp/build-ab/cand.cpp", "cand.cpp");
  EXPECT_EQ(t.find("/tmp/build-ab"), std::string::npos);
  EXPECT_NE(t.find("cand.cpp:10:3: error: 'ouput'"), std::string::npos);
  EXPECT_NE(t.find("^~~~~"), std::string::npos);
  EXPECT_EQ(t.find("In file included"), std::string::npos);
  EXPECT_EQ(t.find("warning"), std::string::npos);
}

// The verdict's first line, which live progress and the report show alone,
// carries the first error rather than ending at "does not compile:".
TEST(ErrorTrimTest, FirstCompilerErrorIsTheFirstErrorLine) {
  EXPECT_EQ(FirstCompilerError("In file included from x.h:1,\n"
                               "cand.cpp: In function 'int f()':\n"
                               "cand.cpp:3:5: warning: unused variable 'y'\n"
                               "cand.cpp:4:1: error: expected ';' before '}' token\n"
                               "cand.cpp:9:1: error: second\n"),
            "cand.cpp:4:1: error: expected ';' before '}' token");
  EXPECT_EQ(FirstCompilerError("  kernel.cu(12): error: identifier \"blockIdx\" is undefined\n"),
            "kernel.cu(12): error: identifier \"blockIdx\" is undefined");
  EXPECT_EQ(FirstCompilerError("/usr/bin/ld: cand.o: in function `f':\n"
                               "cand.cpp:(.text+0x5): undefined reference to `g()'\n"),
            "cand.cpp:(.text+0x5): undefined reference to `g()'");
  EXPECT_EQ(FirstCompilerError("\nsomething else went wrong\n"), "something else went wrong");
  EXPECT_EQ(FirstCompilerError(""), "");
  EXPECT_EQ(FirstCompilerError("x.cpp:1:1: error: " + std::string(500, 'a'), 40).size(), 43u);
}

TEST(ErrorTrimTest, CapsTheNumberOfErrors) {
  std::string out;
  for (int i = 0; i < 50; ++i) out += "c.cpp:" + std::to_string(i) + ":1: error: bad\n";
  std::string t = TrimCompilerOutput(out, "c.cpp", "c.cpp", 8);
  EXPECT_NE(t.find("c.cpp:7:1"), std::string::npos);
  EXPECT_EQ(t.find("c.cpp:8:1"), std::string::npos);
}

class CpuBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-build-test");
    auto b = CompilerBuilder::Create(CompileCache(dir_ / "cache"), CpuCompilerOptions());
    ASSERT_TRUE(b.ok()) << b.status().message();
    builder_ = std::move(b).value();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  std::filesystem::path dir_;
  std::unique_ptr<CompilerBuilder> builder_;
};

TEST_F(CpuBuilderTest, BuildsThenHitsTheCache) {
  auto src = Write(
      "ok.cpp",
      "#include <hone/kernel.h>\nHONE_EXPORT int hone_forward(const hone_args*) { return 0; }\n");
  auto first = builder_->Build(src);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(first->ok) << first->full_log;
  EXPECT_FALSE(first->cached);
  EXPECT_TRUE(std::filesystem::exists(first->library));
  auto second = builder_->Build(src);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->library, first->library);
  EXPECT_LT(second->seconds, 0.05);
}

TEST_F(CpuBuilderTest, CompileErrorIsAValueAndCached) {
  auto src = Write("bad.cpp",
                   "#include <hone/kernel.h>\nHONE_EXPORT int hone_forward(const hone_args*) { "
                   "return nope; }\n");
  auto r = builder_->Build(src);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->log.find("bad.cpp:2"), std::string::npos) << r->log;
  EXPECT_NE(r->log.find("nope"), std::string::npos);
  auto again = builder_->Build(src);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cached);
  EXPECT_FALSE(again->ok);
  // The same bytes in another file: the cached failure names that file, as
  // the feedback to the model must (`cp bad.cpp other.cpp`).
  auto other = builder_->Build(Write("other.cpp", ReadFile(src).value()));
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->cached);
  EXPECT_NE(other->log.find("other.cpp:2"), std::string::npos) << other->log;
  EXPECT_EQ(other->log.find("bad.cpp"), std::string::npos) << other->log;
}

TEST_F(CpuBuilderTest, UndefinedSymbolsFailAtLinkTime) {
  auto src = Write("undef.cpp",
                   "#include <hone/kernel.h>\nextern int missing_fn();\nHONE_EXPORT int "
                   "hone_forward(const hone_args*) { return missing_fn(); }\n");
  auto r = builder_->Build(src);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->log.find("missing_fn"), std::string::npos) << r->log;
}

TEST_F(CpuBuilderTest, PoolBuildsInParallel) {
  BuildPool pool(*builder_, 2);
  std::vector<std::future<Result<BuildResult>>> futures;
  for (int i = 0; i < 4; ++i)
    futures.push_back(pool.Submit(
        Write("k" + std::to_string(i) + ".cpp",
              "#include <hone/kernel.h>\nHONE_EXPORT int hone_forward(const hone_args*) { return " +
                  std::to_string(i) + "; }\n")));
  for (auto& f : futures) {
    auto r = f.get();
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->ok);
  }
}

}  // namespace
}  // namespace hone

namespace hone {
namespace {

TEST(PtxasReportTest, ParsesEntryFunctionsOnly) {
  std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z3addPKfPfl' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z3addPKfPfl\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function '_Z5tiledPKfPfi' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z6helperf\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Function properties for _Z5tiledPKfPfi\n"
      "    256 bytes stack frame, 16 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 1 barriers, 256 bytes cumulative stack size, "
      "1024 bytes smem\n";
  auto k = ParsePtxasReport(log);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "_Z3addPKfPfl");
  EXPECT_EQ(k[0].registers, 10);
  EXPECT_EQ(k[0].shared_bytes, 0);
  EXPECT_EQ(k[1].name, "_Z5tiledPKfPfi");
  EXPECT_EQ(k[1].registers, 32);
  EXPECT_EQ(k[1].shared_bytes, 1024);
  EXPECT_EQ(k[1].stack_bytes, 256);
  EXPECT_EQ(k[1].spill_store_bytes, 16);
  EXPECT_EQ(k[1].spill_load_bytes, 8);
  std::string text = FormatResources(k);
  EXPECT_NE(text.find("_Z3addPKfPfl: 10 registers, 0 B shared, 0 B stack, no spills"),
            std::string::npos);
  EXPECT_NE(text.find("spills 16 B stored / 8 B loaded"), std::string::npos);
}

TEST(CudaBuilderTest, CompilesForTheGpuArchitectureAndRecordsResources) {
  if (!FindProgram("nvcc").ok()) GTEST_SKIP() << "nvcc is not on PATH";
  auto dir = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-nvcc-test");
  auto b = CompilerBuilder::Create(CompileCache(dir / "cache"), CudaCompilerOptions("sm_90a"));
  ASSERT_TRUE(b.ok()) << b.status().message();
  std::ofstream(dir / "k.cu")
      << "#include <hone/kernel.h>\n"
         "__global__ void twice(const float* a, float* o, long n) {\n"
         "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) o[i] = 2 * a[i]; }\n"
         "HONE_EXPORT int hone_forward(const hone_args* args) {\n"
         "  long n = hone_numel(&args->outputs[0]);\n"
         "  twice<<<(n + 255) / 256, 256, 0, (cudaStream_t)args->stream>>>(\n"
         "      (const float*)args->inputs[0].data, (float*)args->outputs[0].data, n);\n"
         "  return cudaGetLastError() != cudaSuccess; }\n";
  auto r = (*b)->Build(dir / "k.cu");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->ok) << r->full_log;
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_NE(r->kernels[0].find("twice"), std::string::npos);
  EXPECT_NE(r->resources.find("registers"), std::string::npos);
  auto cached = (*b)->Build(dir / "k.cu");
  ASSERT_TRUE(cached.ok());
  EXPECT_TRUE(cached->cached);
  EXPECT_EQ(cached->kernels, r->kernels);  // the cache keeps the ptxas report
  std::ofstream(dir / "bad.cu")
      << "#include <hone/kernel.h>\n__global__ void k() { undeclared(); }\n";
  auto bad = (*b)->Build(dir / "bad.cu");
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(bad->ok);
  EXPECT_NE(bad->log.find("bad.cu"), std::string::npos) << bad->log;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hone
