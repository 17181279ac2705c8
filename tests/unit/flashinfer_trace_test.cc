// FlashInfer-Trace files as the format defines them: definitions, workloads
// (bare or wrapped) and solutions read with their order kept, and every
// malformed file refused with one message naming the file and the field.
#include "format/flashinfer_trace.h"

#include <gtest/gtest.h>

#include "core/expr.h"
#include "core/fs.h"

namespace hone::flashinfer {
namespace {

class FlashInferTraceTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakeTempDir(fs::temp_directory_path(), "hone-fi-test"); }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Write(const std::string& name, const std::string& text) {
    fs::path f = dir_ / name;
    EXPECT_TRUE(WriteFileAtomic(f, text).ok());
    return f;
  }

  // A valid definition, with `edit` applied to its text.
  fs::path Definition(const std::string& from = "", const std::string& to = "") {
    std::string text = R"({
      "name": "rms", "op_type": "rmsnorm", "description": null, "tags": ["x:y"],
      "axes": {"batch": {"type": "var"}, "hidden": {"type": "const", "value": 8},
               "twice": {"type": "expr", "expression": "2 * hidden"}},
      "inputs": {"x": {"shape": ["batch", "hidden"], "dtype": "bfloat16"},
                 "w": {"shape": ["hidden"], "dtype": "bfloat16"},
                 "eps": {"shape": null, "dtype": "float32"}},
      "outputs": {"y": {"shape": ["batch", "hidden"], "dtype": "bfloat16"}},
      "reference": "import torch\ndef run(x, w, eps):\n    return x\n",
      "unknown_key": 1})";
    if (!from.empty()) {
      size_t at = text.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      text.replace(at, from.size(), to);
    }
    return Write("def.json", text);
  }

  fs::path dir_;
};

TEST_F(FlashInferTraceTest, ADefinitionKeepsItsOrderAndItsKinds) {
  auto d = ReadDefinition(Definition());
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->name, "rms");
  ASSERT_EQ(d->inputs.size(), 3u);
  // Not alphabetical: the calling order is the file's.
  EXPECT_EQ(d->inputs[0].name, "x");
  EXPECT_EQ(d->inputs[1].name, "w");
  EXPECT_EQ(d->inputs[2].name, "eps");
  EXPECT_TRUE(d->inputs[2].scalar);
  EXPECT_EQ(d->axes[1].kind, Axis::Kind::kConst);
  EXPECT_EQ(d->axes[1].value, 8);
  EXPECT_EQ(d->axes[2].kind, Axis::Kind::kExpr);
  EXPECT_EQ(Classify(Definition()), FileKind::kDefinition);
}

// SOL-ExecBench writes expression axes in Python ("attention_head_dim // 2").
TEST_F(FlashInferTraceTest, ExpressionAxesInPython) {
  auto d = ReadDefinition(Definition(R"("2 * hidden")", R"("max(hidden // 2, 1) ** 2 % 7")"));
  ASSERT_TRUE(d.ok()) << d.status().message();
  auto e = Expr::Parse(d->axes[2].expression);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e->EvalInt({{"hidden", 8}}), 2) << "max(4, 1) ** 2 % 7";
}

TEST_F(FlashInferTraceTest, MalformedDefinitionsNameTheFileAndTheField) {
  struct Case {
    std::string from, to, says;
  } cases[] = {
      {R"(["batch", "hidden"], "dtype": "bfloat16"},
                 "w")",
       R"(["batch", "hiden"], "dtype": "bfloat16"},
                 "w")",
       "inputs.x.shape[1]: 'hiden' is not an axis of the definition"},
      {R"("dtype": "float32")", R"("dtype": "float12")",
       "inputs.eps.dtype: unknown dtype 'float12'"},
      {R"("dtype": "float32")", R"("dtype": "float8_e4m3fn")",
       "inputs.eps.dtype: 'float8_e4m3fn' is a FlashInfer-Trace dtype that hone does not evaluate"},
      {R"({"type": "const", "value": 8})", R"({"type": "fixed", "value": 8})",
       "axes.hidden.type: expected \"const\", \"var\" or \"expr\""},
      {R"("2 * hidden")", R"("2 * width")", "axes.twice.expression: 'width' is not another axis"},
      {"def run(x, w, eps)", "def forward(x, w, eps)",
       "reference: defines no top-level function run"},
      {R"("outputs": {"y")", R"("outputs": {"x")", "outputs.x: also the name of an input"},
  };
  for (const auto& c : cases) {
    fs::path f = Definition(c.from, c.to);
    auto d = ReadDefinition(f);
    ASSERT_FALSE(d.ok()) << c.says;
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(d.status().message().find(f.string() + ": "), std::string::npos)
        << d.status().message();
    EXPECT_NE(d.status().message().find(c.says), std::string::npos) << d.status().message();
  }
  EXPECT_FALSE(ReadDefinition(Write("bad.json", "{not json")).ok());
}

TEST_F(FlashInferTraceTest, WorkloadsBareOrWrappedAndTheirErrors) {
  auto d = ReadDefinition(Definition());
  ASSERT_TRUE(d.ok());
  fs::path good = Write(
      "w.jsonl",
      R"({"uuid": "u1", "axes": {"batch": 3}, "inputs": {"eps": {"type": "scalar", "value": 1e-6}}})"
      "\n\n"
      R"({"definition": "rms", "workload": {"uuid": "u2", "axes": {"batch": 9}, "inputs": {"x": {"type": "random"}}, "tolerance": {"max_atol": 0.5, "required_matched_ratio": 0.9}}, "solution": null})"
      "\n"
      R"({"definition": "other", "workload": {"uuid": "u3", "axes": {"n": 1}}})"
      "\n");
  auto w = ReadWorkloads(good, *d);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->size(), 2u) << "another definition's line is left out";
  EXPECT_EQ((*w)[0].axes[0].second, 3);
  EXPECT_EQ((*w)[0].inputs[0].second.kind, InputSource::Kind::kScalar);
  EXPECT_EQ((*w)[1].uuid, "u2");
  EXPECT_EQ((*w)[1].line, 3);
  EXPECT_DOUBLE_EQ(*(*w)[1].tolerance.atol, 0.5);
  EXPECT_DOUBLE_EQ(*(*w)[1].tolerance.required_matched_ratio, 0.9);

  struct Case {
    std::string line, says;
  } cases[] = {
      {R"({"uuid": "a", "axes": {}})",
       "workload.axes: the var axis 'batch' of definition rms has no value"},
      {R"({"uuid": "a", "axes": {"batch": 2, "hidden": 8}})",
       "workload.axes.hidden: a const axis takes no value"},
      {R"({"uuid": "a", "axes": {"batch": 0}})", "workload.axes.batch: expected an integer > 0"},
      {R"({"uuid": "a", "axes": {"batch": 2}, "inputs": {"z": {"type": "random"}}})",
       "workload.inputs.z: not an input of rms"},
      {R"({"uuid": "a", "axes": {"batch": 2}, "inputs": {"x": {"type": "safetensors", "path": "b.st"}}})",
       "workload.inputs.x.tensor_key: required"},
  };
  for (const auto& c : cases) {
    fs::path f = Write("bad.jsonl", "\n" + c.line + "\n");
    auto r = ReadWorkloads(f, *d);
    ASSERT_FALSE(r.ok()) << c.says;
    EXPECT_NE(r.status().message().find(f.string() + ":2: " + c.says), std::string::npos)
        << r.status().message();
  }
}

TEST_F(FlashInferTraceTest, SolutionsInBothDialects) {
  fs::path fib = Write("s.json", R"({"name": "s1", "definition": "rms", "author": "a",
    "spec": {"language": "Triton", "target_hardware": ["H100"], "entry_point": "k/main.py::run",
             "destination_passing_style": false},
    "sources": [{"path": "k/main.py", "content": "def run(x): pass\n"}]})");
  auto s = ReadSolution(fib);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->language(), "triton");
  EXPECT_EQ(s->entry_file, "k/main.py");
  EXPECT_EQ(s->entry_symbol, "run");
  EXPECT_FALSE(s->destination_passing);
  EXPECT_EQ(Classify(fib), FileKind::kSolution);
  fs::path sol = Write("s2.json", R"({"name": "s2", "definition": "rms",
    "spec": {"languages": ["cuda_cpp"], "target_hardware": "LOCAL", "entry_point": "a.cu::run", "binding": "torch"},
    "sources": [{"path": "a.cu", "content": "x"}]})");
  auto s2 = ReadSolution(sol);
  ASSERT_TRUE(s2.ok()) << s2.status().message();
  EXPECT_TRUE(s2->destination_passing) << "the format's default";
  EXPECT_EQ(s2->binding, "torch");

  struct Case {
    std::string text, says;
  } cases[] = {
      {R"({"name": "s", "definition": "d", "spec": {"language": "python", "entry_point": "main.py"}, "sources": [{"path": "main.py", "content": "x"}]})",
       "spec.entry_point: expected \"file::function\""},
      {R"({"name": "s", "definition": "d", "spec": {"language": "python", "entry_point": "m.py::f"}, "sources": [{"path": "main.py", "content": "x"}]})",
       "spec.entry_point: the entry file 'm.py' is not in sources"},
      {R"({"name": "s", "definition": "d", "spec": {"language": "python", "entry_point": "../m.py::f"}, "sources": [{"path": "../m.py", "content": "x"}]})",
       "spec.entry_point: must not leave the solution's folder"},
      {R"({"name": "s", "definition": "d", "spec": {"language": "cuda", "entry_point": "m.cu::f", "binding": "pybind"}, "sources": [{"path": "m.cu", "content": "x"}]})",
       "spec.binding: expected \"torch\" or \"tvm-ffi\""},
  };
  for (const auto& c : cases) {
    fs::path f = Write("bad.json", c.text);
    auto r = ReadSolution(f);
    ASSERT_FALSE(r.ok()) << c.says;
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace hone::flashinfer
