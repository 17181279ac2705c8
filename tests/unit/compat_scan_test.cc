// The static scan of a ModelNew file: the scanner's reply as hone reads it,
// and the real scanner (python/hone_pyscan.py) run on a temporary file.
#include "compat/compat_scan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <set>

#include "build/compiler_builder.h"
#include "core/fs.h"
#include "lang/builtin.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

TEST(CompatScanTest, ParsesACannedReply) {
  json reply = json::parse(R"JSON({
    "ok": true, "error": null,
    "model_new": {"defined": true, "how": "subclass", "line": 12},
    "extensions": [
      {"call": "load_inline", "line": 5, "scope": "module", "in_try": true, "resolved": true,
       "unresolved_reason": "", "name": "relu_ext",
       "args": {"name": "relu_ext", "cpp_sources": ["int f();"], "functions": ["f"]},
       "key": "abc123"},
      {"call": "load", "line": 20, "scope": "ModelNew.forward", "in_try": false,
       "resolved": false, "unresolved_reason": "sources: calls os.path.join(...)",
       "args": {"name": "late"}}],
    "kernels": ["relu_kernel"], "triton_kernels": ["add_kernel"], "builds_extension": true,
    "uses": {"side_streams": true, "cuda_graphs": false, "external_libraries": ["cublas"]}
  })JSON");
  auto scan = CompatScanFromJson(reply);
  ASSERT_TRUE(scan.ok()) << scan.status().message();
  EXPECT_TRUE(scan->ok);
  EXPECT_TRUE(scan->model_new.defined);
  EXPECT_EQ(scan->model_new.how, "subclass");
  EXPECT_EQ(scan->model_new.line, 12);
  ASSERT_EQ(scan->extensions.size(), 2u);
  const CompatExtension& e = scan->extensions[0];
  EXPECT_EQ(e.call, "load_inline");
  EXPECT_EQ(e.scope, "module");
  EXPECT_TRUE(e.in_try);
  EXPECT_TRUE(e.resolved);
  EXPECT_EQ(e.name, "relu_ext");
  EXPECT_EQ(e.key, "abc123");
  EXPECT_EQ(e.args["cpp_sources"][0], "int f();");
  const CompatExtension& lazy = scan->extensions[1];
  EXPECT_EQ(lazy.scope, "ModelNew.forward");
  EXPECT_FALSE(lazy.resolved);
  EXPECT_EQ(lazy.unresolved_reason, "sources: calls os.path.join(...)");
  EXPECT_EQ(lazy.key, "");
  EXPECT_EQ(scan->kernels, std::vector<std::string>{"relu_kernel"});
  EXPECT_EQ(scan->triton_kernels, std::vector<std::string>{"add_kernel"});
  EXPECT_TRUE(scan->builds_extension);
  EXPECT_TRUE(scan->uses.side_streams);
  EXPECT_FALSE(scan->uses.cuda_graphs);
  EXPECT_EQ(scan->uses.external_libraries, std::vector<std::string>{"cublas"});
}

// hone lint and the evaluation give one finding, in one wording, for a file
// that builds no kernel of its own.
TEST(CompatScanTest, AllFindingsLeadWithLibraryWhenNothingIsBuilt) {
  CompatScan scan;
  scan.model_new.line = 7;
  scan.findings.push_back({"timing", 3, "time.perf_counter", "replaces a clock"});
  auto all = scan.AllFindings();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].rule, "library");
  EXPECT_EQ(all[0].line, 7);
  EXPECT_NE(all[0].explanation.find("launches no kernel of its own"), std::string::npos);
  EXPECT_EQ(all[1].rule, "timing");
  scan.builds_extension = true;
  all = scan.AllFindings();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].rule, "timing");
}

TEST(CompatScanTest, ASyntaxErrorIsAScanNotAStatus) {
  auto scan = CompatScanFromJson(
      {{"ok", false}, {"error", "/x/c.py:3: SyntaxError: invalid syntax"}, {"kernels", {"k"}}});
  ASSERT_TRUE(scan.ok());
  EXPECT_FALSE(scan->ok);
  EXPECT_EQ(scan->error, "/x/c.py:3: SyntaxError: invalid syntax");
  EXPECT_FALSE(scan->model_new.defined);
}

TEST(CompatScanTest, MalformedRepliesNameTheField) {
  auto bad = CompatScanFromJson({{"ok", true}, {"extensions", {{{"call", 3}}}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("extensions[0].call"), std::string::npos);
  bad = CompatScanFromJson({{"ok", true}, {"kernels", "k"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'kernels'"), std::string::npos);
  bad = CompatScanFromJson(
      {{"ok", true}, {"extensions", {{{"call", "load_inline"}, {"resolved", true}}}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("key"), std::string::npos);
  EXPECT_FALSE(CompatScanFromJson({{"ok", false}}).ok());  // no error message
}

bool HavePython() { return FindProgram("python3").ok() || access("/usr/bin/python3", X_OK) == 0; }

class CompatScanFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HavePython()) GTEST_SKIP() << "no python3 on PATH or at /usr/bin/python3";
    dir_ = MakeTempDir("/tmp", "hone-scan-test").value();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  fs::path Write(const std::string& text) {
    fs::path p = dir_ / "candidate.py";
    EXPECT_TRUE(WriteFileAtomic(p, text).ok());
    return p;
  }
  fs::path dir_;
};

TEST_F(CompatScanFileTest, RunsTheRealScanner) {
  fs::path file = Write(R"PY(
import torch
from torch.utils.cpp_extension import load_inline as li
BLOCK = 256
cuda_src = f"""
__global__ void scale_kernel(float* x, int n) {{ int i = blockIdx.x * {BLOCK}; }}
"""
try:
    ext = li(name="scale_ext", cpp_sources="torch::Tensor scale(torch::Tensor x);",
             cuda_sources=cuda_src, functions=["scale"])
except Exception:
    ext = None

class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale(x)
)PY");
  auto scan = ScanCompatFile(file, HONE_SOURCE_PYTHON_DIR);
  ASSERT_TRUE(scan.ok()) << scan.status().message();
  EXPECT_TRUE(scan->ok);
  EXPECT_EQ(scan->model_new.how, "class");
  EXPECT_EQ(scan->model_new.line, 14);
  ASSERT_EQ(scan->extensions.size(), 1u);
  const CompatExtension& e = scan->extensions[0];
  EXPECT_TRUE(e.resolved) << e.unresolved_reason;
  EXPECT_TRUE(e.in_try);
  EXPECT_EQ(e.name, "scale_ext");
  EXPECT_EQ(e.key.size(), 64u);
  EXPECT_NE(e.args["cuda_sources"][0].get<std::string>().find("blockIdx.x * 256"),
            std::string::npos);
  EXPECT_EQ(scan->kernels, std::vector<std::string>{"scale_kernel"});
  EXPECT_TRUE(scan->builds_extension);
}

// hone prepare's warm-up files (ModelNewLoading::warm_up): each is a load_inline
// file the scan resolves, so the prebuild builds it outside the sandbox, and
// each passes its own C++ flags, so each fills its own precompiled header.
TEST_F(CompatScanFileTest, LoadInlinesWarmUpFilesResolveEachWithItsOwnFlags) {
  const Language* load_inline = BuiltInLanguages().Find("load_inline");
  ASSERT_NE(load_inline, nullptr);
  ASSERT_TRUE(load_inline->loading.warm_up);
  EXPECT_TRUE(load_inline->loading.warm_up("cpu").empty());
  std::vector<std::string> files = load_inline->loading.warm_up("cuda");
  ASSERT_EQ(files.size(), 3u);
  std::set<std::string> flag_sets, keys;
  for (const std::string& text : files) {
    fs::path file = Write(text);
    EXPECT_EQ(BuiltInLanguages().ForFile(file).value()->name, "load_inline");
    auto scan = ScanCompatFile(file, HONE_SOURCE_PYTHON_DIR);
    ASSERT_TRUE(scan.ok()) << scan.status().message();
    ASSERT_TRUE(scan->ok) << scan->error;
    EXPECT_TRUE(scan->model_new.defined);
    ASSERT_EQ(scan->extensions.size(), 1u);
    const CompatExtension& e = scan->extensions[0];
    EXPECT_TRUE(e.resolved) << e.unresolved_reason;
    EXPECT_FALSE(e.in_try);
    flag_sets.insert(e.args.value("extra_cflags", nlohmann::json()).dump());
    keys.insert(e.key);
    EXPECT_EQ(scan->kernels, std::vector<std::string>{"hone_warm_kernel"});
  }
  EXPECT_EQ(flag_sets.size(), 3u);
  EXPECT_EQ(keys.size(), 3u);
  for (const Language& l : BuiltInLanguages().all()) {
    if (l.name != "load_inline") {
      EXPECT_FALSE(l.loading.warm_up && !l.loading.warm_up("cuda").empty()) << l.name;
    }
  }
}

TEST_F(CompatScanFileTest, ASyntaxErrorNamesTheLine) {
  fs::path file = Write("import torch\n\nclass ModelNew(:\n    pass\n");
  auto scan = ScanCompatFile(file, HONE_SOURCE_PYTHON_DIR);
  ASSERT_TRUE(scan.ok()) << scan.status().message();
  EXPECT_FALSE(scan->ok);
  EXPECT_EQ(scan->error.rfind(file.string() + ":3: SyntaxError:", 0), 0u) << scan->error;
}

TEST_F(CompatScanFileTest, APythonThatCannotRunIsNamed) {
  fs::path file = Write("class ModelNew: pass\n");
  auto scan = ScanCompatFile(file, HONE_SOURCE_PYTHON_DIR, "/nonexistent/python3");
  ASSERT_FALSE(scan.ok());
  EXPECT_EQ(scan.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(scan.status().message().find("/nonexistent/python3"), std::string::npos);
  auto missing = ScanCompatFile(file, dir_);  // no scanner there
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("hone_pyscan.py"), std::string::npos);
}

}  // namespace
}  // namespace hone
