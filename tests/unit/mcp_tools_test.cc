// hone's MCP tools with a fake in place of the hone subcommands they run
// (src/mcp/mcp_tools.h): arguments checked and named, candidates sent as
// text written to the server's work folder, verdicts digested and recorded
// in the run store.
#include "mcp/mcp_tools.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/fs.h"
#include "core/temp_dir.h"
#include "lang/builtin.h"
#include "session/eval_context.h"
#include "verify/verdict_json.h"

namespace hone::mcp {
namespace {

namespace fs = std::filesystem;

// Answers each hone subcommand with a canned document and keeps the argv.
class FakeHone : public ChildRunner {
 public:
  Result<ChildOutcome> Run(const ChildRequest& request, const CancelFlag& cancel,
                           const ProgressLine& progress) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls.push_back(request.argv);
    }
    ChildOutcome o;
    o.exit_code = 0;
    const std::string& sub = request.argv.at(1);
    if (sub == "task") o.out = task.dump();
    if (sub == "eval") {
      if (auto text = ReadFile(request.argv.at(3)); text.ok()) candidate_text = *text;
      if (progress) progress("building");
      o.out = verdict.dump();
    }
    if (sub == "lint") o.out = lint.dump();
    if (sub == "report") o.out = "{}";
    o.cancelled = cancel.cancelled();
    return o;
  }
  std::vector<std::vector<std::string>> calls;
  std::string candidate_text;  // the last eval's candidate, as it read then
  nlohmann::json task = {{"name", "softmax"},
                         {"hash", "h1"},
                         {"category", "softmax"},
                         {"description", "row-wise softmax"},
                         {"contract", "hone_forward receives x and writes y\n"},
                         {"cases", nlohmann::json::array()}};
  nlohmann::json verdict;
  nlohmann::json lint = nlohmann::json::array();
  std::mutex mu_;
};

Verdict CompileError() {
  Verdict v;
  v.status = VerdictStatus::kCompileError;
  v.reason = "the candidate does not compile";
  v.task = "softmax";
  v.backend = "cpu";  // literal-ok: a verdict's field in a test
  v.language = "cpp";
  v.build.log =
      "candidate.cpp: In function 'int hone_forward(const hone_args*)':\n"
      "candidate.cpp:3:5: error: 'undeclared_thing' was not declared in this scope\n";
  return v;
}

class McpToolsTest : public ::testing::Test {
 protected:
  McpToolsTest() {
    fs::create_directories(root() / "task");
    std::ofstream(root() / "task" / "task.toml") << "name = \"softmax\"\n";
    std::ofstream(root() / "cand.cpp") << "int x;\n";
    fake_.verdict = VerdictToJson(CompileError());
  }
  fs::path root() const { return dir_.path() / "root"; }
  ToolEnv& env() {
    if (!env_) {
      fs::create_directories(root());
      env_ = std::make_unique<ToolEnv>("hone", PathGuard::Make({root().string()}).value(), fake_,
                                       queue_, dir_.path() / "work",
                                       (dir_.path() / "hone.db").string(), BuiltInLanguages(),
                                       ToolBackendsOf(BuiltInBackends()));
    }
    return *env_;
  }
  ToolResult Call(const std::string& name, nlohmann::json args, AgentRun* run = nullptr) {
    ToolCall call;
    call.args = std::move(args);
    call.cancel = &cancel_;
    call.run = run;
    call.progress = [this](const std::string& line) { progress_.push_back(line); };
    return CallTool(*FindTool(tools_, name), env(), call);
  }

  TempDirOwner dir_{MakeTempDir(fs::temp_directory_path(), "mcp-tools-").value()};
  FakeHone fake_;
  DeviceQueue queue_;
  CancelFlag cancel_;
  std::unique_ptr<ToolEnv> env_;
  std::vector<Tool> tools_ = HoneTools(ToolBackendsOf(BuiltInBackends()));
  std::vector<std::string> progress_;
};

TEST_F(McpToolsTest, ListsEveryToolWithBothSchemas) {
  for (const char* name : {"eval", "lint", "task_show", "profile", "bench", "prepare", "report",
                           "lessons", "result"}) {
    const Tool* t = FindTool(tools_, name);
    ASSERT_NE(t, nullptr) << name;
    nlohmann::json entry = ToolListEntry(*t);
    EXPECT_EQ(entry["inputSchema"]["type"], "object") << name;
    EXPECT_EQ(entry["outputSchema"]["type"], "object") << name;
    EXPECT_FALSE(entry["description"].get<std::string>().empty()) << name;
  }
}

TEST_F(McpToolsTest, ABadArgumentIsAToolErrorNamingIt) {
  ToolResult unknown = Call("eval", {{"problem", "task"}, {"candidate", "cand.cpp"}, {"speed", 1}});
  EXPECT_TRUE(unknown.is_error);
  EXPECT_NE(unknown.text.find("'speed'"), std::string::npos) << unknown.text;
  ToolResult missing = Call("eval", {{"candidate", "cand.cpp"}});
  EXPECT_TRUE(missing.is_error);
  EXPECT_NE(missing.text.find("'problem' is required"), std::string::npos) << missing.text;
  ToolResult typed = Call("eval", {{"problem", 3}, {"candidate", "cand.cpp"}});
  EXPECT_NE(typed.text.find("argument 'problem': expected a string"), std::string::npos)
      << typed.text;
  ToolResult nowhere = Call("eval", {{"problem", "no/such/task"}, {"candidate", "cand.cpp"}});
  EXPECT_TRUE(nowhere.is_error);
  EXPECT_NE(nowhere.text.find("problem: no/such/task"), std::string::npos) << nowhere.text;
  ToolResult both = Call("eval", {{"problem", "task"}, {"candidate", "cand.cpp"}, {"source", "x"}});
  EXPECT_NE(both.text.find("not both"), std::string::npos) << both.text;
  ToolResult language = Call("eval", {{"problem", "task"}, {"source", "x"}, {"language", "cobol"}});
  EXPECT_NE(language.text.find("argument 'language'"), std::string::npos) << language.text;
  EXPECT_TRUE(fake_.calls.empty()) << "nothing ran for a bad call";
}

TEST_F(McpToolsTest, SourceTextIsWrittenToTheWorkFolderAndEvaluated) {
  ToolResult r = Call("eval", {{"problem", "task"},
                               {"source", "int broken(;\n"},
                               {"language", "cpp"},
                               {"no_time", true},
                               {"seed", 5}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_EQ(fake_.calls.size(), 1u);
  const auto& argv = fake_.calls[0];
  EXPECT_EQ(argv[1], "eval");
  EXPECT_EQ(argv[2], fs::canonical(root() / "task").string());
  fs::path written = argv[3];
  EXPECT_EQ(written.extension(), ".cpp");
  EXPECT_EQ(written.string().rfind((dir_.path() / "work").string(), 0), 0u) << written;
  EXPECT_EQ(fake_.candidate_text, "int broken(;\n");
  EXPECT_FALSE(fs::exists(written.parent_path())) << "the call's folder goes with the call";
  auto has = [&](const std::string& flag) {
    return std::find(argv.begin(), argv.end(), flag) != argv.end();
  };
  EXPECT_TRUE(has("--json") && has("--no-time") && has("--seed") && has("--log"));
  EXPECT_EQ(progress_.front(), "building");
}

TEST_F(McpToolsTest, ACompileErrorLeadsWithTheCompilersLine) {
  ToolResult r = Call("eval", {{"problem", "task"}, {"candidate", "cand.cpp"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.text.rfind("compile_error: the candidate does not compile\n", 0), 0u) << r.text;
  EXPECT_NE(r.text.find("candidate.cpp:3:5: error: 'undeclared_thing'"), std::string::npos);
  EXPECT_EQ(r.structured["status"], "compile_error");
  EXPECT_EQ(r.structured["verdict"]["status"], "compile_error");
}

TEST_F(McpToolsTest, EvaluationsLandInTheSessionsRunAsATrajectory) {
  AgentRun run((dir_.path() / "hone.db"), "mcp test", {{"client", "test"}});
  ToolResult first = Call("eval", {{"problem", "task"}, {"candidate", "cand.cpp"}}, &run);
  ToolResult second =
      Call("eval", {{"problem", "task"}, {"source", "int y;\n"}, {"language", "cpp"}}, &run);
  ASSERT_FALSE(second.is_error) << second.text;
  EXPECT_EQ(second.structured["attempt"], 1);
  auto store = Store::Open(dir_.path() / "hone.db").value();
  auto runs = store->ListRuns().value();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].kind, "optimize");
  EXPECT_EQ(runs[0].name, "mcp test");
  auto attempts = store->RunCandidates(runs[0].id).value();
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[1].candidate.kind, "agent");
  EXPECT_EQ(attempts[1].candidate.parents, std::vector<int>{0});
  EXPECT_EQ(attempts[1].candidate.source.value_or(""), "int y;\n");
  ASSERT_TRUE(attempts[1].evaluation.has_value());
  EXPECT_EQ(attempts[1].evaluation->status, "compile_error");
  int task_shows = 0;
  for (const auto& c : fake_.calls) task_shows += c[1] == "task";
  EXPECT_EQ(task_shows, 1) << "the task is described once per session";
}

TEST_F(McpToolsTest, LintSaysWhatRejects) {
  fake_.lint = {
      {{"file", "cand.cpp"},
       {"language", "cpp"},
       {"findings",
        {{{"rule", "threads"}, {"line", 2}, {"why", "no threads"}, {"severity", "reject"}}}}}};
  ToolResult r = Call("lint", {{"candidate", "cand.cpp"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(r.structured["rejected"].get<bool>());
  EXPECT_NE(r.text.find("line 2: threads (reject)"), std::string::npos) << r.text;
}

TEST_F(McpToolsTest, TaskShowGivesTheContractAndTheReference) {
  std::ofstream(root() / "task" / "reference.cpp") << "// the reference\n";
  fake_.task["reference"] = (root() / "task" / "reference.cpp").string();
  ToolResult r = Call("task_show", {{"problem", "task"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.text.find("hone_forward receives x"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("// the reference"), std::string::npos) << r.text;
  EXPECT_EQ(r.structured["tasks"][0]["reference_source"], "// the reference\n");
}

TEST_F(McpToolsTest, TaskShowLeavesOutAReferenceOutsideTheRoots) {
  std::ofstream(dir_.path() / "secret.txt") << "top secret\n";
  for (const std::string& ref : {(dir_.path() / "secret.txt").string(),
                                 (root() / "task" / ".." / ".." / "secret.txt").string()}) {
    fake_.task["reference"] = ref;
    ToolResult r = Call("task_show", {{"problem", "task"}});
    ASSERT_FALSE(r.is_error) << r.text;
    EXPECT_EQ(r.text.find("top secret"), std::string::npos) << r.text;
    EXPECT_FALSE(r.structured["tasks"][0].contains("reference_source"));
    EXPECT_NE(r.structured["tasks"][0]["reference_note"].get<std::string>().find("left out"),
              std::string::npos);
  }
}

TEST_F(McpToolsTest, PrepareWaitsForTheDevicesTurn) {
  CancelFlag none;
  auto turn = queue_.Acquire("cuda:0", none, nullptr);
  ASSERT_TRUE(turn);
  env();
  std::thread prepare([&] { Call("prepare", {{"problems", {"task"}}}); });
  auto prepared = [&] {
    std::lock_guard<std::mutex> lock(fake_.mu_);
    for (const auto& c : fake_.calls)
      if (c[1] == "prepare") return true;
    return false;
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_FALSE(prepared()) << "baselines are not timed while another call has the GPU";
  turn.reset();
  prepare.join();
  EXPECT_TRUE(prepared());
}

TEST_F(McpToolsTest, AnEvalWithoutAVerdictStillHasStatusAndReason) {
  fake_.verdict = {{"parts", {{{"error", "part 1 did not load"}}}}};
  ToolResult r = Call("eval", {{"problem", "task"}, {"candidate", "cand.cpp"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["status"], "error");
  EXPECT_EQ(r.structured["reason"], "part 1 did not load");
  fake_.verdict = {{"parts", nlohmann::json::array()}};
  r = Call("eval", {{"problem", "task"}, {"candidate", "cand.cpp"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_FALSE(r.ToJson().contains("structuredContent"));
}

TEST_F(McpToolsTest, ReportWritesOnlyAnHtmlFile) {
  std::ofstream(root() / "notes.txt") << "mine\n";
  fs::create_directories(root() / "folder.html");
  for (const char* output : {"notes.txt", "task/task.toml", "folder.html", "report"}) {
    ToolResult r = Call("report", {{"run", "last"}, {"output", output}});
    EXPECT_TRUE(r.is_error) << output;
  }
  EXPECT_EQ(ReadFile(root() / "notes.txt").value(), "mine\n");
  EXPECT_FALSE(Call("report", {{"run", "3"}, {"output", "new.html"}}).is_error);
  std::ofstream(root() / "old.html") << "<html></html>";
  EXPECT_FALSE(Call("report", {{"run", "last"}, {"output", "old.html"}}).is_error);
  for (const char* run : {"1; rm -rf /", "--help", "", "12a"}) {
    ToolResult r = Call("report", {{"run", run}});
    EXPECT_TRUE(r.is_error) << run;
    EXPECT_NE(r.text.find("'run'"), std::string::npos) << r.text;
  }
}

TEST_F(McpToolsTest, ACommandsJsonErrorIsTheToolsError) {
  fake_.verdict = {{"error", "softmax: the task does not load"}, {"exit_code", 2}};
  ToolResult r = Call("eval", {{"problem", "task"}, {"candidate", "cand.cpp"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "softmax: the task does not load");
  EXPECT_TRUE(r.ToJson()["isError"].get<bool>());
  EXPECT_FALSE(r.ToJson().contains("structuredContent"));
}

TEST_F(McpToolsTest, ProfileOfAFailingCandidateIsAnError) {
  ToolResult r = Call("profile", {{"problem", "task"}, {"candidate", "cand.cpp"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("only a passing candidate is profiled"), std::string::npos) << r.text;
  EXPECT_NE(std::find(fake_.calls[0].begin(), fake_.calls[0].end(), "--metrics"),
            fake_.calls[0].end());
}

}  // namespace
}  // namespace hone::mcp
