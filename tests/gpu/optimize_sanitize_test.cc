// hone optimize on the GPU sanitizes each new best before it counts, and
// stores what the tools found (label "gpu"; skipped without a GPU or
// without compute-sanitizer). The LLM is a scripted local server.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/fs.h"
#include "cuda/gpu.h"
#include "gpu/require_gpu.h"
#include "integration/test_env.h"
#include "support/fake_llm_server.h"
#include "tools/cuda_tools.h"
#include "tools/sanitize.h"

namespace hone {
namespace {

using namespace hone::testing;

TEST(CudaOptimizeSanitizeTest, ANewBestWithAMemcheckErrorDoesNotCount) {
  REQUIRE_GPU();
  if (!FindCudaTool("compute-sanitizer")) GTEST_SKIP() << "compute-sanitizer not installed";
  // Right output, but a read past an input: verification passes it.
  std::string code = ReadFile(SourceDir() / "tests/sanitize/read_past_input.cu").value();
  FakeLlmServer server;
  ASSERT_TRUE(server.Start().ok());
  server.Enqueue(FakeResponse{200, {}, OpenAiReply("```cuda\n" + code + "```\n")});
  auto dir = MakeTempDir(std::filesystem::temp_directory_path(), "hone-gpu-optimize");
  ASSERT_TRUE(dir.ok());
  std::filesystem::path db = *dir / "store.db";
  auto r = RunHone({"optimize", (SourceDir() / "tests/integration/fixture_add").string(),
                    "--backend", "cuda", "--model", "openai-compatible:fake", "--base-url",
                    server.base_url(), "--strategy", "sample", "--samples", "1", "--no-time",
                    "--run-dir", (*dir / "run").string(), "--store", db.string()});
  std::printf("%s\n", r.output.c_str());
  EXPECT_NE(r.output.find("compute-sanitizer on it"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("candidate 0: runtime_error: compute-sanitizer memcheck"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("none passed"), std::string::npos) << r.output;
  auto exported = RunHone({"export", "1", "--store", db.string(), "--verdict", "--quiet"});
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  auto row = nlohmann::json::parse(exported.output.substr(0, exported.output.find('\n')));
  EXPECT_EQ(row["status"], "runtime_error");
  EXPECT_GE(row["verdict"]["sanitizer"]["errors"].get<int>(), 1) << row.dump();
  std::error_code ec;
  std::filesystem::remove_all(*dir, ec);
}

}  // namespace
}  // namespace hone
