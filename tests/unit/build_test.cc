#include <gtest/gtest.h>

#include <fstream>

#include "build/build_pool.h"
#include "build/compiler_builder.h"
#include "build/error_trim.h"
#include "core/fs.h"

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
  auto src = Write("ok.cpp", "#include <hone/kernel.h>\nHONE_EXPORT int hone_forward(const hone_args*) { return 0; }\n");
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
  auto src = Write("bad.cpp", "#include <hone/kernel.h>\nHONE_EXPORT int hone_forward(const hone_args*) { return nope; }\n");
  auto r = builder_->Build(src);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->log.find("bad.cpp:2"), std::string::npos) << r->log;
  EXPECT_NE(r->log.find("nope"), std::string::npos);
  auto again = builder_->Build(src);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cached);
  EXPECT_FALSE(again->ok);
}

TEST_F(CpuBuilderTest, UndefinedSymbolsFailAtLinkTime) {
  auto src = Write("undef.cpp", "#include <hone/kernel.h>\nextern int missing_fn();\nHONE_EXPORT int hone_forward(const hone_args*) { return missing_fn(); }\n");
  auto r = builder_->Build(src);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->log.find("missing_fn"), std::string::npos) << r->log;
}

TEST_F(CpuBuilderTest, PoolBuildsInParallel) {
  BuildPool pool(*builder_, 2);
  std::vector<std::future<Result<BuildResult>>> futures;
  for (int i = 0; i < 4; ++i)
    futures.push_back(pool.Submit(Write("k" + std::to_string(i) + ".cpp",
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
