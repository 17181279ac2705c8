// robust-kbench and MultiKernelBench read unchanged (tests/formats/, written
// for this project): a robust-kbench task's configurations (single and
// multi, init x input x shared) are the parts `hone eval` gives a verdict
// each, with its candidate in the benchmark's own form (a C++ extension
// whose PYBIND11_MODULE defines forward); a MultiKernelBench folder
// (reference/<category>/) is a suite whose categories are its levels.
// Needs python3 with torch (the oracle), skipped without.
#include <fstream>
#include <nlohmann/json.hpp>

#include "integration/test_env.h"
#include "support/fake_llm_server.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::HaveTorch;
using testing::RunHone;
using testing::SourceDir;

fs::path Formats() { return SourceDir() / "tests/formats"; }

TEST(FieldFormatsTest, ARobustKbenchTaskIsOneVerdictPerConfiguration) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  fs::path task = Formats() / "robust_kbench/tasks/rms_scale";
  // The wrong kernel leaves the weight out: right only where the init
  // configuration makes the weight ones.
  auto r = RunHone({"eval", task.string(), (task / "solutions/forward_no_weight.cpp").string(),
                    "--backend", "cpu", "--no-time", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json j = json::parse(r.output.substr(r.output.find("{\n")), nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.output;
  EXPECT_EQ(j.value("format", ""), "robust-kbench");
  std::vector<std::string> got;
  for (const auto& p : j["parts"])
    got.push_back(p.value("label", "") + ": " + p.value("status", ""));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "init_method_random_hidden_size_64_batch_size_4_hidden_size_64: incorrect",
                     "init_method_random_hidden_size_96_batch_size_3_hidden_size_96: incorrect",
                     "init_method_ones_hidden_size_96_batch_size_3_hidden_size_96: passed"}));
}

// `hone optimize` on a robust-kbench task of three configurations scores
// each reply on all three: a kernel without the weight fails the first
// (random weights), named so; a right one passes all three.
TEST(FieldFormatsTest, OptimizeScoresEachReplyOnEveryConfiguration) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  const std::string kernel = R"(#include <hone/kernel.h>
#include <cmath>
HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* x = static_cast<const float*>(args->inputs[0].data);
  const float* w = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t rows = args->inputs[0].shape[0], cols = args->inputs[0].shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += double(x[r * cols + c]) * x[r * cols + c];
    const float inv = 1.0f / std::sqrt(float(sum / cols) + 1e-6f);
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = x[r * cols + c] * inv * WEIGHT;
  }
  return 0;
}
)";
  auto with_weight = [&](const std::string& w) {
    std::string k = kernel;
    k.replace(k.find("WEIGHT"), 6, w);
    return "```cpp\n" + k + "```";
  };
  FakeLlmServer server;
  ASSERT_TRUE(server.Start().ok());
  server.Enqueue({200, {}, OpenAiReply(with_weight("1.0f"))});
  server.Enqueue({200, {}, OpenAiReply(with_weight("w[c]"))});
  auto dir = MakeTempDir(fs::temp_directory_path(), "hone-rkb-optimize");
  ASSERT_TRUE(dir.ok());
  const std::string db = (*dir / "store.db").string();
  auto r = RunHone({"optimize",      (Formats() / "robust_kbench/tasks/rms_scale").string(),
                    "--model",       "openai-compatible:fake",
                    "--base-url",    server.base_url(),
                    "--strategy",    "sample",
                    "--samples",     "2",
                    "--concurrency", "1",
                    "--backend",     "cpu",
                    "--store",       db,
                    "--run-dir",     (*dir / "run").string(),
                    "--no-lessons",  "--no-time",
                    "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<json> attempts;
  std::ifstream in(*dir / "run/attempts.jsonl");
  for (std::string line; std::getline(in, line);) attempts.push_back(json::parse(line));
  ASSERT_EQ(attempts.size(), 2u) << r.output;
  const json& wrong = attempts[0]["verdict"];
  EXPECT_EQ(wrong["status"], "incorrect") << wrong.dump();
  EXPECT_EQ(wrong["reason"].get<std::string>().rfind(
                "part 1 of 3 (init_method_random_hidden_size_64_batch_size_4_hidden_size_64): ", 0),
            0u)
      << wrong["reason"];
  const json& right = attempts[1]["verdict"];
  EXPECT_EQ(right["status"], "passed") << right.dump();
  EXPECT_NE(right["reason"].get<std::string>().find("on each of 3 parts"), std::string::npos)
      << right["reason"];
  // The prompt named the parts.
  ASSERT_FALSE(server.requests().empty());
  EXPECT_NE(server.requests()[0].body.find("This problem has 3 parts"), std::string::npos);
  fs::remove_all(*dir);
}

// `hone task show` on a robust-kbench task folder shows its configurations,
// not its func_forward.py as a KernelBench file that lacks get_init_inputs.
TEST(FieldFormatsTest, TaskShowShowsARobustKbenchTasksConfigurations) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  auto r = RunHone({"task", "show", (Formats() / "robust_kbench/tasks/rms_scale").string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("== init_method_ones_hidden_size_96_batch_size_3_hidden_size_96"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("get_init_inputs"), std::string::npos) << r.output;
}

TEST(FieldFormatsTest, AMalformedRobustKbenchConfigExitsTwoNamingIt) {
  fs::path dir = *MakeTempDir(fs::temp_directory_path(), "hone-rkb");
  fs::copy(Formats() / "robust_kbench/tasks/rms_scale/func_forward.py", dir / "func_forward.py");
  ASSERT_TRUE(
      WriteFileAtomic(dir / "config_forward.json", R"({"single_input_configs": {"batch_size": 4}})")
          .ok());
  auto r = RunHone({"eval", dir.string(),
                    (Formats() / "robust_kbench/tasks/rms_scale/solutions/forward.cpp").string(),
                    "--backend", "cpu"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find((dir / "config_forward.json").string() +
                          ": single_input_configs: expected a list of objects"),
            std::string::npos)
      << r.output;
  fs::remove_all(dir);
}

TEST(FieldFormatsTest, AMultiKernelBenchFolderIsASuiteOfItsCategories) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  fs::path dir = *MakeTempDir(fs::temp_directory_path(), "hone-mkb");
  auto bench = RunHone({"bench", (Formats() / "multikernelbench").string(), "--backend", "cpu",
                        "--no-time", "--store", (dir / "store.db").string()});
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  // torch.rand draws only [0, 1): the kernel that ignores negative inputs
  // passes MultiKernelBench's own check and fails hone's signed inputs.
  EXPECT_NE(bench.output.find("leaky_relu/positive_only.cpp       incorrect"), std::string::npos)
      << bench.output;
  EXPECT_NE(bench.output.find("dist=signed"), std::string::npos) << bench.output;
  auto report = RunHone({"report", "last", "--store", (dir / "store.db").string(), "--json"});
  json r = json::parse(report.output, nullptr, false);
  ASSERT_TRUE(r.is_object()) << report.output;
  EXPECT_EQ(r["outcomes"].value("passed", 0), 2);
  std::set<std::string> categories;
  for (const auto& t : r["tasks"]) categories.insert(t.value("category", ""));
  EXPECT_EQ(categories, (std::set<std::string>{"activation", "reduce"}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hone
