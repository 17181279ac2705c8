// FlashInfer-Trace read unchanged (tests/formats/flashinfer, written for
// this project): `hone eval DEFINITION SOLUTION` gives one status per
// workload in the format's words, for python solutions (destination-passing
// into hone's poisoned buffers, or value-returning) and C++ ones through
// hone's C contract; the output cache keyed by input addresses (the MLSys
// contest's hack) is INCORRECT; a malformed definition, workload or
// solution is exit 2 naming the file and field; `hone bench DATASET` scores
// a dataset; `hone task show` shows each workload. Evaluations need python3
// with torch (the oracle runs the reference) and are skipped without it.
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "integration/test_env.h"
#include "store/store.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::HaveTorch;
using testing::RunHone;
using testing::SourceDir;

fs::path Dataset() { return SourceDir() / "tests/formats/flashinfer"; }
fs::path Def(const std::string& rel) { return Dataset() / "definitions" / rel; }
fs::path Sol(const std::string& rel) { return Dataset() / "solutions/hone" / rel; }

class FlashInferFormatTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakeTempDir(fs::temp_directory_path(), "hone-fi-format"); }
  void TearDown() override { fs::remove_all(dir_); }

  // The statuses `hone eval --json` gives, one per workload.
  std::vector<std::string> Statuses(const fs::path& def, const fs::path& sol,
                                    std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"eval", def.string(), sol.string(), "--backend",
                                     "cpu",  "--no-time",  "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = RunHone(args);
    std::vector<std::string> out;
    size_t brace = r.output.find("{\n");
    json j = json::parse(brace == std::string::npos ? "" : r.output.substr(brace), nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.output;
    if (!j.is_object()) return out;
    EXPECT_EQ(j.value("format", ""), "flashinfer-trace");
    for (const auto& p : j["parts"]) {
      out.push_back(p.value("status", "ERROR: " + p.value("error", std::string())));
      if (p.value("status", "") != "PASSED" && p.contains("verdict"))
        last_reason_ = p["verdict"].value("reason", "");
    }
    return out;
  }

  // A one-workload file: the definition's workload on `line` (1-based).
  std::string OneWorkload(const std::string& jsonl, int line) {
    auto text = ReadFile(Dataset() / "workloads" / jsonl);
    std::istringstream lines(*text);
    std::string l;
    for (int i = 0; i < line; ++i) std::getline(lines, l);
    fs::path f = dir_ / "one.jsonl";
    EXPECT_TRUE(WriteFileAtomic(f, l + "\n").ok());
    return f.string();
  }

  fs::path dir_;
  std::string last_reason_;
};

using V = std::vector<std::string>;

TEST_F(FlashInferFormatTest, PythonAndCppSolutionsGetOneStatusPerWorkload) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  EXPECT_EQ(Statuses(Def("rmsnorm/rmsnorm_h64.json"), Sol("rmsnorm/rmsnorm_h64_python.json")),
            (V{"PASSED", "PASSED", "PASSED"}));
  EXPECT_EQ(Statuses(Def("gemm/gemm_n32_k48.json"), Sol("gemm/gemm_n32_k48_cpp.json")),
            (V{"PASSED", "PASSED", "PASSED"}));
  // A scalar input by value, and two outputs returned.
  EXPECT_EQ(
      Statuses(Def("elementwise/scaled_residual.json"), Sol("elementwise/scaled_residual_cpp.json"),
               {"--workloads", OneWorkload("elementwise/scaled_residual.jsonl", 3)}),
      (V{"PASSED"}));
  EXPECT_EQ(Statuses(Def("rmsnorm/fused_add_rmsnorm_h64.json"),
                     Sol("rmsnorm/fused_add_rmsnorm_h64_python.json"),
                     {"--workloads", OneWorkload("rmsnorm/fused_add_rmsnorm_h64.jsonl", 2)}),
            (V{"PASSED"}));
}

TEST_F(FlashInferFormatTest, WrongSolutionsGetTheFormatsStatusesAndTheCause) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  EXPECT_EQ(Statuses(Def("gemm/gemm_n32_k48.json"), Sol("gemm/gemm_n32_k48_transposed.json"),
                     {"--workloads", OneWorkload("gemm/gemm_n32_k48.jsonl", 2)}),
            (V{"INCORRECT_SHAPE"}));
  EXPECT_NE(last_reason_.find("output 'C' has the wrong shape"), std::string::npos) << last_reason_;
  EXPECT_EQ(Statuses(Def("elementwise/scaled_residual.json"),
                     Sol("elementwise/scaled_residual_wrong_dtype.json"),
                     {"--workloads", OneWorkload("elementwise/scaled_residual.jsonl", 1)}),
            (V{"INCORRECT_DTYPE"}));
  // Destination-passing outputs are hone's own buffers, poisoned.
  EXPECT_EQ(Statuses(Def("activation/silu_and_mul_d32.json"),
                     Sol("activation/silu_and_mul_d32_half_written.json"),
                     {"--workloads", OneWorkload("activation/silu_and_mul_d32.jsonl", 2)}),
            (V{"INCORRECT_NUMERICAL"}));
  EXPECT_NE(last_reason_.find("unwritten outputs are poisoned"), std::string::npos) << last_reason_;
  // The contest's hack: an output cached by the inputs' addresses. hone's
  // value sets reuse no buffer's values.
  EXPECT_EQ(Statuses(Def("rmsnorm/rmsnorm_h64.json"), Sol("rmsnorm/rmsnorm_h64_cached.json"),
                     {"--workloads", OneWorkload("rmsnorm/rmsnorm_h64.jsonl", 2)}),
            (V{"INCORRECT_NUMERICAL"}));
}

// FlashInfer-Bench's default binding: a C++ solution that names none uses
// tvm-ffi, as the format's own example does. Without the tvm_ffi package the
// verdict says so and how to install it; never a reward hack (the file
// builds its kernel through tvm-ffi, not through torch).
TEST_F(FlashInferFormatTest, ATvmFfiSolutionWithoutThePackageSaysHowToInstallIt) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  for (const char* python : {"python3", "/usr/bin/python3"})
    if (auto r = RunCommand({python, "-c", "import tvm_ffi"}); r.ok() && r->succeeded())
      GTEST_SKIP() << "tvm_ffi is installed here: the solution would build";
  const std::string source =
      "#include <tvm/ffi/container/tensor.h>\n#include <tvm/ffi/function.h>\n\n"
      "void axpy(tvm::ffi::TensorView x, tvm::ffi::TensorView y, float alpha,\n"
      "          tvm::ffi::TensorView out) {\n"
      "  const float* a = static_cast<const float*>(x.data_ptr());\n"
      "  const float* b = static_cast<const float*>(y.data_ptr());\n"
      "  float* o = static_cast<float*>(out.data_ptr());\n"
      "  for (int64_t i = 0; i < x.size(0); ++i) o[i] = alpha * a[i] + b[i];\n}\n\n"
      "TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy, axpy);\n";
  json sol = {{"name", "scaled_residual_tvm_ffi"},
              {"definition", "scaled_residual"},
              {"author", "a FlashInfer-Bench user"},
              {"spec",
               {{"language", "cpp"},
                {"target_hardware", {"cpu"}},
                {"entry_point", "axpy.cpp::axpy"},
                {"destination_passing_style", true}}},
              {"sources", {{{"path", "axpy.cpp"}, {"content", source}}}}};
  const fs::path file = dir_ / "scaled_residual_tvm_ffi.json";
  ASSERT_TRUE(WriteFileAtomic(file, sol.dump(2)).ok());
  // Its module's import fails: the build step hone cannot take for it.
  EXPECT_EQ(Statuses(Def("elementwise/scaled_residual.json"), file,
                     {"--workloads", OneWorkload("elementwise/scaled_residual.jsonl", 1)}),
            (V{"COMPILE_ERROR"}));
  EXPECT_NE(last_reason_.find("tvm_ffi package is not installed"), std::string::npos)
      << last_reason_;
  EXPECT_NE(last_reason_.find("pip install apache-tvm-ffi"), std::string::npos) << last_reason_;
}

// SOL-ExecBench as its definitions are written: an axis expression in
// Python (`n // 2`) and `custom` inputs that the reference's
// custom_inputs_entrypoint draws (here a random permutation's indices), under
// hone's seeds; a solution that ignores the indices is caught.
TEST_F(FlashInferFormatTest, SolExecBenchCustomInputsAndPythonExpressions) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  // Ordered: the calling order is the file's.
  nlohmann::ordered_json def = {
      {"name", "gather_scale"},
      {"op_type", "elementwise"},
      {"axes", {{"n", {{"type", "var"}}}, {"half", {{"type", "expr"}, {"expression", "n // 2"}}}}},
      {"custom_inputs_entrypoint", "generate_inputs"},
      {"inputs",
       {{"x", {{"shape", {"n"}}, {"dtype", "float32"}}},
        {"idx", {{"shape", {"half"}}, {"dtype", "int64"}}},
        {"alpha", {{"shape", nullptr}, {"dtype", "float32"}}}}},
      {"outputs", {{"out", {{"shape", {"half"}}, {"dtype", "float32"}}}}},
      {"reference",
       "import torch\n\n\ndef generate_inputs(axes_and_scalars, device):\n"
       "    n = axes_and_scalars['n']\n"
       "    x = torch.rand(n, device=device) + 1.0\n"
       "    idx = torch.randperm(n, device=device)[: n // 2]\n"
       "    return {'x': x, 'idx': idx}\n\n\n"
       "def run(x, idx, alpha):\n    return x[idx] * alpha\n"}};
  const fs::path def_file = dir_ / "gather_scale.json";
  ASSERT_TRUE(WriteFileAtomic(def_file, def.dump(2)).ok());
  const fs::path workloads = dir_ / "gather_scale.jsonl";
  ASSERT_TRUE(WriteFileAtomic(workloads,
                              R"({"uuid": "w1", "axes": {"n": 9}, "inputs": {"x": {"type": )"
                              R"("custom"}, "idx": {"type": "custom"}, "alpha": {"type": )"
                              R"("scalar", "value": 2.0}}})"
                              "\n")
                  .ok());
  auto solution = [&](const std::string& name, const std::string& body) {
    json sol = {
        {"name", name},
        {"definition", "gather_scale"},
        {"spec",
         {{"language", "python"},
          {"entry_point", "main.py::run"},
          {"destination_passing_style", true}}},
        {"sources",
         {{{"path", "main.py"},
           {"content", "import torch\n\n\ndef run(x, idx, alpha, out):\n    " + body + "\n"}}}}};
    fs::path f = dir_ / (name + ".json");
    EXPECT_TRUE(WriteFileAtomic(f, sol.dump(2)).ok());
    return f;
  };
  EXPECT_EQ(Statuses(def_file, solution("right", "out.copy_(x[idx] * alpha)"),
                     {"--workloads", workloads.string()}),
            (V{"PASSED"}))
      << last_reason_;
  EXPECT_EQ(Statuses(def_file, solution("first_half", "out.copy_(x[: idx.numel()] * alpha)"),
                     {"--workloads", workloads.string()}),
            (V{"INCORRECT_NUMERICAL"}));
}

// The summary names the solution file given, and the file hone generated
// from it only in a note.
TEST_F(FlashInferFormatTest, TheSummaryNamesTheSolutionGiven) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  const fs::path sol = Sol("elementwise/scaled_residual_python.json");
  auto r = RunHone({"eval", Def("elementwise/scaled_residual.json").string(), sol.string(),
                    "--backend", "cpu", "--no-time", "--workloads",
                    OneWorkload("elementwise/scaled_residual.jsonl", 1)});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("passed  scaled_residual <- " + sol.string()), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the file hone wrote for it"), std::string::npos) << r.output;
}

TEST_F(FlashInferFormatTest, MalformedFilesExitTwoNamingTheFileAndField) {
  auto def = *ReadFile(Def("rmsnorm/rmsnorm_h64.json"));
  auto write = [&](const std::string& name, std::string text, const std::string& from,
                   const std::string& to) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    fs::path f = dir_ / name;
    EXPECT_TRUE(WriteFileAtomic(f, text).ok());
    return f.string();
  };
  std::string sol = Sol("rmsnorm/rmsnorm_h64_python.json").string();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{write("bad_axis.json", def, "\"shape\": [\n        \"hidden_size\"",
              "\"shape\": [\n        \"hidden\""),
        sol},
       "inputs.weight.shape[0]: 'hidden' is not an axis of the definition"},
      {{write("bad_dtype.json", def, "\"dtype\": \"bfloat16\"", "\"dtype\": \"bfloat17\""), sol},
       "inputs.hidden_states.dtype: unknown dtype 'bfloat17'"},
      {{Def("rmsnorm/rmsnorm_h64.json").string(), sol, "--workloads",
        write("w.jsonl", "{\"uuid\": \"u\", \"axes\": {}}\n", "{}", "{}")},
       ":1: workload.axes: the var axis 'batch_size' of definition rmsnorm_h64 has no value"},
      {{Def("rmsnorm/rmsnorm_h64.json").string(), Sol("gemm/gemm_n32_k48_python.json").string()},
       "definition: the solution is for 'gemm_n32_k48', the problem is 'rmsnorm_h64'"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"eval"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"--backend", "cpu"});
    auto r = RunHone(args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one message\n" << r.output;
  }
}

// A workload's stored inputs (safetensors) are copied beside the generated
// problem, so that the warm-up call in the sandbox draws them even from a
// dataset in a folder the sandbox cannot pass (0700, as a private home is);
// and since the format's speedup is against its reference, no torch.compile
// baseline is timed unless asked for.
TEST_F(FlashInferFormatTest, StoredInputsReachTheSandboxAndOnlyTheReferenceIsTimed) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  fs::path data = dir_ / "private";
  fs::copy(Dataset(), data, fs::copy_options::recursive);
  fs::permissions(data, fs::perms::owner_all);
  auto r = RunHone(
      {"eval", (data / "definitions/gqa_paged/gqa_paged_decode_h4_kv2_d16_ps1.json").string(),
       (data / "solutions/hone/gqa_paged/gqa_decode_python.json").string(), "--backend", "cpu",
       "--json", "--workloads", OneWorkload("gqa_paged/gqa_paged_decode_h4_kv2_d16_ps1.jsonl", 2)});
  size_t brace = r.output.find("{\n");
  json j = json::parse(brace == std::string::npos ? "" : r.output.substr(brace), nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.output;
  ASSERT_EQ(j["parts"].size(), 1u) << r.output;
  const json& v = j["parts"][0]["verdict"];
  EXPECT_EQ(j["parts"][0].value("status", ""), "PASSED") << r.output;
  std::string head = v["sandbox"].value("output_head", "");
  EXPECT_EQ(head.find("\"ok\": false"), std::string::npos) << head;
  EXPECT_NE(v["timing"].value("compile_unavailable", "").find("against its reference"),
            std::string::npos)
      << v["timing"].dump().substr(0, 600);
}

// A dataset as the format lays it out: two definitions, their python and
// C++ solutions, three workloads each.
TEST_F(FlashInferFormatTest, BenchScoresADatasetAndTaskShowShowsEachWorkload) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  fs::path data = dir_ / "dataset";
  for (const char* rel :
       {"definitions/gemm", "workloads/gemm", "definitions/elementwise", "workloads/elementwise"}) {
    fs::create_directories(data / rel);
    fs::copy(Dataset() / rel, data / rel, fs::copy_options::recursive);
  }
  fs::create_directories(data / "solutions/hone");
  for (const char* name : {"gemm/gemm_n32_k48_cpp.json", "elementwise/scaled_residual_python.json",
                           "elementwise/scaled_residual_wrong_dtype.json"})
    fs::copy(Sol(name), data / "solutions/hone" / fs::path(name).filename());
  auto bench = RunHone({"bench", data.string(), "--backend", "cpu", "--no-time", "--store",
                        (dir_ / "store.db").string(), "--json"});
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  // The table's unit column is as wide as its labels: the rows of one
  // definition's workloads can be told apart.
  auto table = RunHone({"bench", data.string(), "--backend", "cpu", "--no-time", "--store",
                        (dir_ / "table.db").string()});
  ASSERT_EQ(table.exit_code, 0) << table.output;
  for (const char* row : {"n=3 (workload 200faa71)/scaled_residual_python.py ",
                          "n=1000 (workload 453269c2)/scaled_residual_wrong_dtype.py "})
    EXPECT_NE(table.output.find(row), std::string::npos) << row << " in\n" << table.output;
  auto report = RunHone({"report", "last", "--store", (dir_ / "store.db").string(), "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  json r = json::parse(report.output, nullptr, false);
  ASSERT_TRUE(r.is_object()) << report.output;
  // Three workloads each: gemm's C++ and the python scaled_residual pass,
  // the float64 one fails.
  EXPECT_EQ(r["outcomes"].value("passed", 0), 6) << report.output.substr(0, 3000);
  EXPECT_EQ(r["outcomes"].value("runtime_error", 0), 3) << report.output.substr(0, 3000);

  // The run exported as the format's traces: one per workload evaluated,
  // with the definition, the workload as written and the format's status.
  auto traces = RunHone({"export", "last", "--store", (dir_ / "store.db").string(), "--format",
                         "flashinfer-trace", "--quiet"});
  ASSERT_EQ(traces.exit_code, 0) << traces.output;
  std::istringstream lines(traces.output);
  std::map<std::string, int> statuses;
  int gemm = 0;
  for (std::string l; std::getline(lines, l);) {
    json t = json::parse(l, nullptr, false);
    ASSERT_TRUE(t.is_object()) << l;
    ASSERT_TRUE(t["workload"].contains("uuid")) << l;
    ASSERT_TRUE(t["workload"].contains("axes")) << l;
    std::string status = t["evaluation"].value("status", "");
    ++statuses[status];
    if (t.value("definition", "") == "gemm_n32_k48") {
      ++gemm;
      EXPECT_EQ(t.value("solution", ""), "gemm_n32_k48_cpp") << l;
    }
    if (status == "PASSED") {
      EXPECT_TRUE(t["evaluation"].contains("correctness")) << l;
      EXPECT_TRUE(t["evaluation"].contains("performance")) << l;
      // The bench ran with --no-time: no latency is known, and none is 0.
      EXPECT_TRUE(t["evaluation"]["performance"]["latency_ms"].is_null()) << l;
      EXPECT_TRUE(t["evaluation"]["performance"]["speedup_factor"].is_null()) << l;
    } else {
      EXPECT_FALSE(t["evaluation"].contains("performance")) << l;
    }
  }
  EXPECT_EQ(gemm, 3) << traces.output;
  EXPECT_EQ(statuses["PASSED"], 6) << traces.output;
  EXPECT_EQ(statuses.size(), 2u) << traces.output;

  auto show = RunHone({"task", "show", Def("gemm/gemm_n32_k48.json").string()});
  ASSERT_EQ(show.exit_code, 0) << show.output;
  EXPECT_NE(show.output.find("== M=1 (workload"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("== M=128 (workload"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("FlashInfer-Trace definition gemm_n32_k48 (gemm)"), std::string::npos)
      << show.output;
}

// `hone optimize DEFINITION.json` searches on every workload the layout
// puts beside the definition (each reply is scored on all: tune/parts.h,
// and the prompt says so); with --workloads on that file's (its endpoint
// here answers nothing, so every call fails: the search itself is
// optimize_test's).
TEST_F(FlashInferFormatTest, OptimizeTakesADefinitionAndItsWorkloads) {
  if (!HaveTorch()) GTEST_SKIP() << "no python3 with torch here: the oracle cannot run";
  const std::string db = (dir_ / "store.db").string();
  std::vector<std::string> common = {"--model", "openai-compatible:none", "--base-url",
                                     "http://127.0.0.1:9/v1", "--strategy", "sample", "--samples",
                                     "1", "--retries", "1", "--backend", "cpu", "--store", db,
                                     "--run-dir", (dir_ / "run").string(), "--no-lessons",
                                     // No reference time for the prompt: every call fails.
                                     "--no-time"};
  std::vector<std::string> all = {"optimize", Def("gemm/gemm_n32_k48.json").string()};
  all.insert(all.end(), common.begin(), common.end());
  auto several = RunHone(all);
  EXPECT_EQ(several.exit_code, 1) << several.output;  // every LLM call failed
  EXPECT_NE(several.output.find("every LLM call failed"), std::string::npos) << several.output;
  auto first = RunHone({"export", "last", "--store", db, "--quiet"});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("This problem has 3 parts"), std::string::npos)
      << first.output.substr(0, 3000);
  fs::remove(db);
  fs::remove_all(dir_ / "run");

  std::vector<std::string> one = all;
  one.push_back("--workloads");
  one.push_back(OneWorkload("gemm/gemm_n32_k48.jsonl", 2));
  auto r = RunHone(one);
  EXPECT_EQ(r.exit_code, 1) << r.output;  // every LLM call failed
  EXPECT_NE(r.output.find("every LLM call failed"), std::string::npos) << r.output;
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  auto tasks = (*store)->RunTasks(1);
  ASSERT_TRUE(tasks.ok() && tasks->size() == 1u);
  auto task = (*store)->GetTask(tasks->front().task_hash);
  ASSERT_TRUE(task.ok() && *task);
  EXPECT_EQ(fs::path((*task)->path).extension(), ".py") << (*task)->path;
  EXPECT_NE(ReadFile((*task)->path)->find("HONE_FI"), std::string::npos) << (*task)->path;
  // The prompt shows the definition (axes, dtypes, reference), not the
  // helpers the generated problem carries.
  auto exported = RunHone({"export", "last", "--store", db, "--quiet"});
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  json row = json::parse(exported.output.substr(0, exported.output.find('\n')), nullptr, false);
  ASSERT_TRUE(row.is_object()) << exported.output.substr(0, 2000);
  std::string prompt = row["prompt"]["messages"][0].value("text", "");
  EXPECT_NE(prompt.find("Axes: M=17 (var) N=32 (const) K=48 (const)"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("A: float32 [M, K]"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("return A @ B.T"), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("_hone_fi_expr"), std::string::npos) << prompt;
}

}  // namespace
}  // namespace hone
