// robust-kbench and MultiKernelBench read unchanged (tests/formats/, written
// for this project): a robust-kbench task's configurations (single and
// multi, init x input x shared) are the parts `hone eval` gives a verdict
// each, with its candidate in the benchmark's own form (a C++ extension
// whose PYBIND11_MODULE defines forward); a MultiKernelBench folder
// (reference/<category>/) is a suite whose categories are its levels.
// Needs python3 with torch (the oracle), skipped without.
#include <nlohmann/json.hpp>

#include "integration/test_env.h"

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
