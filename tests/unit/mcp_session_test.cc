// One MCP session with fake tools (src/mcp/mcp_server.h): the handshake,
// tools/list, calls answered from their own threads, progress, errors that
// leave the session serving, and cancellation that gets no response. Also
// the pieces it stands on: the per-device queue and the process runner that
// stops a whole process tree.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <sstream>
#include <thread>

#include "core/fs.h"
#include "core/process_tree.h"
#include "core/temp_dir.h"
#include "lang/builtin.h"
#include "mcp/device_queue.h"
#include "mcp/mcp_server.h"
#include "mcp/stdio_transport.h"
#include "mcp/tool_arguments.h"
#include "mcp/tool_process.h"
#include "session/eval_context.h"

namespace hone::mcp {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Collects what the session sends, in order.
struct Wire {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<nlohmann::json> sent;
  int finished = 0;
  ReplyChannel Channel() {
    return {[this](const nlohmann::json& m) {
              std::lock_guard<std::mutex> lock(mu);
              sent.push_back(m);
              cv.notify_all();
            },
            [this] {
              std::lock_guard<std::mutex> lock(mu);
              ++finished;
              cv.notify_all();
            }};
  }
  bool WaitFinished(int n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, 10s, [&] { return finished >= n; });
  }
  nlohmann::json Last() {
    std::lock_guard<std::mutex> lock(mu);
    return sent.back();
  }
};

Tool FakeTool(const std::string& name, std::function<ToolResult(ToolEnv&, const ToolCall&)> run) {
  Tool t;
  t.name = name;
  t.description = "a fake";
  t.input_schema = ObjectSchema({{"wait", BoolArg("block until cancelled")}});
  t.output_schema = {{"type", "object"}};
  t.run = std::move(run);
  return t;
}

// Work of ~0.6 s run as a job, and the result tool that waits for it again;
// `stopped` is set when it saw its cancellation.
Tool SlowTool(std::atomic<bool>* stopped) {
  Tool t = FakeTool("slow", [stopped](ToolEnv&, const ToolCall& call) {
    for (int i = 0; i < 60 && !call.cancel->cancelled(); ++i) std::this_thread::sleep_for(10ms);
    if (call.cancel->cancelled()) {
      *stopped = true;
      return ToolResult::Error("stopped");
    }
    ToolResult r;
    r.text = "slow done";
    r.structured = {{"status", "passed"}};
    return r;
  });
  t.input_schema = ObjectSchema({{"wait_seconds", NumberArg("")}});
  t.waits = true;
  return t;
}

class McpSessionTest : public ::testing::Test {
 protected:
  McpSessionTest()
      : env_("hone", PathGuard::Make({dir_.path().string()}).value(), runner_, queue_,
             dir_.path() / "work", (dir_.path() / "hone.db").string(), BuiltInLanguages(),
             ToolBackendsOf(BuiltInBackends())) {}
  std::vector<Tool> Tools() {
    return {FakeTool("echo",
                     [](ToolEnv&, const ToolCall& call) {
                       call.progress("halfway");
                       ToolResult r;
                       r.text = "echoed";
                       r.structured = {{"ok", true}};
                       return r;
                     }),
            *FindTool(HoneTools(ToolBackendsOf(BuiltInBackends())), kResultToolName),
            FakeTool("where",
                     [](ToolEnv& env, const ToolCall& call) {
                       ToolResult r;
                       r.text = env.GuardOf(call).roots().front().string();
                       return r;
                     }),
            SlowTool(&slow_stopped_), FakeTool("block", [this](ToolEnv&, const ToolCall& call) {
              blocked_ = true;
              while (!call.cancel->cancelled()) std::this_thread::sleep_for(10ms);
              saw_cancel_ = true;
              return ToolResult::Error("stopped");
            })};
  }
  void Send(McpSession& s, const std::string& text) { s.HandleText(text, wire_.Channel()); }

  TempDirOwner dir_{MakeTempDir(fs::temp_directory_path(), "mcp-session-").value()};
  ProcessRunner runner_;
  DeviceQueue queue_;
  ToolEnv env_;
  Wire wire_;
  std::atomic<bool> blocked_{false}, saw_cancel_{false}, slow_stopped_{false};
};

TEST_F(McpSessionTest, NegotiatesTheProtocolAndListsTools) {
  McpSession s(env_, Tools(), "9.9");
  Send(
      s,
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  nlohmann::json init = wire_.Last();
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-06-18");
  EXPECT_TRUE(init["result"]["capabilities"].contains("tools"));
  EXPECT_TRUE(init["result"]["capabilities"].contains("logging"));
  EXPECT_EQ(init["result"]["serverInfo"]["version"], "9.9");
  Send(
      s,
      R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}})");
  EXPECT_EQ(wire_.Last()["result"]["protocolVersion"], SupportedProtocolVersions().front());
  Send(s, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  Send(s, R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})");
  nlohmann::json list = wire_.Last();
  ASSERT_EQ(list["result"]["tools"].size(), 5u);
  EXPECT_EQ(list["result"]["tools"][0]["name"], "echo");
  Send(s, R"({"jsonrpc":"2.0","id":4,"method":"ping"})");
  EXPECT_EQ(wire_.Last(), nlohmann::json::parse(R"({"jsonrpc":"2.0","id":4,"result":{}})"));
}

TEST_F(McpSessionTest, CallsAnswerWithProgressFromTheirOwnThread) {
  McpSession s(env_, Tools(), "1");
  Send(
      s,
      R"({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":"p"}}})");
  ASSERT_TRUE(wire_.WaitFinished(1));
  s.WaitIdle();
  ASSERT_EQ(wire_.sent.size(), 2u);
  EXPECT_EQ(wire_.sent[0]["method"], "notifications/progress");
  EXPECT_EQ(wire_.sent[0]["params"]["progressToken"], "p");
  EXPECT_EQ(wire_.sent[0]["params"]["message"], "halfway");
  EXPECT_EQ(wire_.sent[1]["id"], "c1");
  EXPECT_EQ(wire_.sent[1]["result"]["structuredContent"]["ok"], true);
  EXPECT_EQ(wire_.sent[1]["result"]["content"][0]["text"], "echoed");
}

TEST_F(McpSessionTest, ErrorsLeaveTheSessionServing) {
  McpSession s(env_, Tools(), "1");
  Send(s, "{broken");
  EXPECT_EQ(wire_.Last()["error"]["code"], kParseError);
  Send(s, R"({"jsonrpc":"2.0","id":5,"method":"resources/list"})");
  EXPECT_EQ(wire_.Last()["error"]["code"], kMethodNotFound);
  Send(s, R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope"}})");
  EXPECT_EQ(wire_.Last()["error"]["code"], kInvalidParams);
  EXPECT_NE(wire_.Last()["error"]["message"].get<std::string>().find("nope"), std::string::npos);
  Send(
      s,
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}})");
  s.WaitIdle();
  EXPECT_TRUE(wire_.Last()["result"]["isError"].get<bool>());
  EXPECT_NE(wire_.Last()["result"]["content"][0]["text"].get<std::string>().find("'x'"),
            std::string::npos);
  Send(s, R"({"jsonrpc":"2.0","id":8,"method":"ping"})");
  EXPECT_EQ(wire_.Last()["id"], 8);
}

TEST_F(McpSessionTest, FieldsOfAnotherTypeGetAnErrorNotACrash) {
  McpSession s(env_, Tools(), "1");
  Send(s, R"({"jsonrpc":2,"id":1,"method":"ping"})");
  EXPECT_EQ(wire_.Last()["error"]["code"], kInvalidRequest);
  Send(
      s,
      R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1,"clientInfo":"x","capabilities":[]}})");
  EXPECT_EQ(wire_.Last()["result"]["protocolVersion"], SupportedProtocolVersions().front());
  Send(s, R"({"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":3}})");
  EXPECT_EQ(wire_.Last()["error"]["code"], kInvalidParams);
  Send(
      s,
      R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":"x","_meta":[]}})");
  s.WaitIdle();
  EXPECT_EQ(wire_.Last()["id"], 4);
  Send(s, R"({"jsonrpc":"2.0","id":5,"method":"ping"})");
  EXPECT_EQ(wire_.Last()["id"], 5);
}

TEST_F(McpSessionTest, ARootsAnswerOfAnotherShapeLeavesTheServersRoots) {
  McpSession s(env_, Tools(), "1", /*ask_client_roots=*/true);
  Send(s,
       R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"roots":{}}}})");
  for (const char* reply :
       {R"("error":{"code":-32601,"message":"no"})", R"("result":{"roots":["file:///tmp", 3]})",
        R"("result":{"roots":{"uri":"file:///tmp"}})", R"("result":[1])"}) {
    Send(s, R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})");
    const nlohmann::json ask = wire_.Last();
    ASSERT_EQ(ask["method"], "roots/list");
    Send(s, R"({"jsonrpc":"2.0","id":)" + ask["id"].dump() + "," + reply + "}");
  }
  Send(
      s,
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"where","arguments":{}}})");
  s.WaitIdle();
  EXPECT_EQ(wire_.Last()["result"]["content"][0]["text"], dir_.path().string());
}

TEST_F(McpSessionTest, ACancelledCallStopsAndGetsNoResponse) {
  McpSession s(env_, Tools(), "1");
  Send(
      s,
      R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"block","arguments":{}}})");
  while (!blocked_) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(s.in_flight(), 1);
  Send(
      s,
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"user"}})");
  s.WaitIdle();
  EXPECT_TRUE(saw_cancel_);
  std::lock_guard<std::mutex> lock(wire_.mu);
  for (const auto& m : wire_.sent) EXPECT_NE(m.value("id", nlohmann::json()), 9) << m.dump();
}

TEST_F(McpSessionTest, AClientsRootsAreTheFoldersItsCallsMayName) {
  fs::create_directories(dir_.path() / "client-root");
  const std::string root = fs::canonical(dir_.path() / "client-root").string();
  McpSession s(env_, Tools(), "1", /*ask_client_roots=*/true);
  Send(
      s,
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}}}})");
  Send(s, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  nlohmann::json ask = wire_.Last();
  ASSERT_EQ(ask["method"], "roots/list");
  nlohmann::json answer = {{"jsonrpc", "2.0"},
                           {"id", ask["id"]},
                           {"result",
                            {{"roots",
                              {{{"uri", "file://" + root}, {"name", "kernels"}},
                               {{"uri", "file:///no/such/folder"}}}}}}};
  Send(s, answer.dump());
  Send(
      s,
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"where","arguments":{}}})");
  s.WaitIdle();
  EXPECT_EQ(wire_.Last()["result"]["content"][0]["text"], root);
}

TEST_F(McpSessionTest, WithRootsOfItsOwnTheServerAsksTheClientNone) {
  McpSession s(env_, Tools(), "1", /*ask_client_roots=*/false);
  Send(s,
       R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"roots":{}}}})");
  Send(s, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(wire_.sent.size(), 1u);
}

TEST_F(McpSessionTest, WorkLongerThanTheWaitGoesOnAsAJobWhoseResultComesLater) {
  McpSession s(env_, Tools(), "1");
  Send(
      s,
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"wait_seconds":0.05}}})");
  s.WaitIdle();  // waits for the job too
  nlohmann::json running = wire_.sent.at(0)["result"];
  EXPECT_EQ(running["structuredContent"]["status"], "running");
  const std::string job = running["structuredContent"]["job"];
  Send(s, nlohmann::json({{"jsonrpc", "2.0"},
                          {"id", 2},
                          {"method", "tools/call"},
                          {"params", {{"name", "result"}, {"arguments", {{"job", job}}}}}})
              .dump());
  s.WaitIdle();
  EXPECT_EQ(wire_.Last()["result"]["content"][0]["text"], "slow done");
  Send(s, nlohmann::json({{"jsonrpc", "2.0"},
                          {"id", 3},
                          {"method", "tools/call"},
                          {"params", {{"name", "result"}, {"arguments", {{"job", job}}}}}})
              .dump());
  s.WaitIdle();
  EXPECT_TRUE(wire_.Last()["result"]["isError"].get<bool>()) << "a result is returned once";
}

TEST_F(McpSessionTest, TheResultToolCanStopAJob) {
  McpSession s(env_, Tools(), "1");
  Send(
      s,
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"wait_seconds":0}}})");
  while (s.in_flight()) std::this_thread::sleep_for(5ms);
  const std::string job = wire_.Last()["result"]["structuredContent"]["job"];
  Send(s, nlohmann::json(
              {{"jsonrpc", "2.0"},
               {"id", 2},
               {"method", "tools/call"},
               {"params", {{"name", "result"}, {"arguments", {{"job", job}, {"cancel", true}}}}}})
              .dump());
  s.WaitIdle();
  EXPECT_EQ(wire_.Last()["result"]["structuredContent"]["status"], "cancelled");
}

TEST_F(McpSessionTest, ACancelledWaitingCallStopsItsJob) {
  McpSession s(env_, Tools(), "1");
  const auto start = std::chrono::steady_clock::now();
  Send(s,
       R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","arguments":{}}})");
  Send(s, R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}})");
  s.WaitIdle();
  EXPECT_TRUE(slow_stopped_) << "the job saw its cancellation";
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms) << "it stopped, not finished (0.6 s)";
  std::lock_guard<std::mutex> lock(wire_.mu);
  EXPECT_TRUE(wire_.sent.empty()) << wire_.sent.front().dump();
}

TEST_F(McpSessionTest, AnyWaitSecondsIsReadWithinZeroToFiveMinutes) {
  McpSession s(env_, Tools(), "1");
  Send(
      s,
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"wait_seconds":1e300}}})");
  s.WaitIdle();
  EXPECT_EQ(wire_.Last()["result"]["content"][0]["text"], "slow done");
  Send(
      s,
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"wait_seconds":-1e300}}})");
  while (s.in_flight()) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(wire_.Last()["result"]["structuredContent"]["status"], "running");
}

TEST_F(McpSessionTest, OverStdioALineTooLongIsAParseErrorAndTheNextIsRead) {
  McpSession s(env_, Tools(), "1");
  std::istringstream in(std::string(100, 'x') + "\n" +
                        R"({"jsonrpc":"2.0","id":1,"method":"ping"})" + "\n");
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  ServeStdio(s, in, out, /*max_line_bytes=*/60);
  std::rewind(out);
  std::vector<nlohmann::json> lines;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, out)) lines.push_back(nlohmann::json::parse(buffer));
  std::fclose(out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["error"]["code"], kParseError);
  EXPECT_EQ(lines[1]["id"], 1);
}

TEST(McpToolArgumentsTest, IntegersAndBoundsAreCheckedWithoutOverflow) {
  const nlohmann::json schema = ObjectSchema({{"n", Bounded(IntegerArg(""), 0, 10)}});
  EXPECT_TRUE(CheckArguments(schema, {{"n", 3}}).ok());
  EXPECT_TRUE(CheckArguments(schema, {{"n", 3.0}}).ok());
  EXPECT_FALSE(CheckArguments(schema, {{"n", 3.5}}).ok());
  EXPECT_FALSE(CheckArguments(schema, {{"n", 1e300}}).ok());
  EXPECT_FALSE(CheckArguments(schema, {{"n", -1e300}}).ok());
  EXPECT_FALSE(CheckArguments(schema, {{"n", 11}}).ok());
  EXPECT_FALSE(CheckArguments(schema, {{"n", -1}}).ok());
  EXPECT_FALSE(CheckArguments(schema, {{"n", 18446744073709551615ull}}).ok());
}

TEST_F(McpSessionTest, CallsInFlightAreBounded) {
  McpSession s(env_, Tools(), "1");
  for (int i = 0; i < kMaxCallsInFlight; ++i)
    Send(s,
         nlohmann::json({{"jsonrpc", "2.0"},
                         {"id", i},
                         {"method", "tools/call"},
                         {"params", {{"name", "block"}, {"arguments", nlohmann::json::object()}}}})
             .dump());
  EXPECT_EQ(s.in_flight(), kMaxCallsInFlight);
  Send(
      s,
      R"({"jsonrpc":"2.0","id":"one-more","method":"tools/call","params":{"name":"block","arguments":{}}})");
  EXPECT_EQ(wire_.Last()["id"], "one-more");
  EXPECT_EQ(wire_.Last()["error"]["code"], kInternalError);
  s.CancelAll();
  s.WaitIdle();
}

TEST(McpJobBoardTest, RunningJobsAreBoundedAndUncollectedResultsExpire) {
  JobBoard board(/*max_running=*/1, /*keep_finished=*/50ms);
  std::atomic<bool> release{false};
  auto first = board.Start([&](Job&) {
    while (!release) std::this_thread::sleep_for(1ms);
    return ToolResult::Error("done");
  });
  ASSERT_TRUE(first.ok());
  auto second = board.Start([](Job&) { return ToolResult::Error("never"); });
  EXPECT_FALSE(second.ok()) << "one job at most";
  release = true;
  board.WaitAll();
  EXPECT_TRUE(board.Find((*first)->id())) << "kept a while for the result tool";
  std::this_thread::sleep_for(80ms);
  EXPECT_FALSE(board.Find((*first)->id())) << "forgotten once kept long enough";
  EXPECT_TRUE(board.Start([](Job&) { return ToolResult::Error("x"); }).ok());
  board.WaitAll();
}

TEST(McpDeviceQueueTest, CallsOnOneDeviceTakeTurnsAndACancelledWaitGivesUpItsPlace) {
  DeviceQueue q;
  CancelFlag none, cancelled;
  auto first = q.Acquire("gpu:0", none, nullptr);
  ASSERT_TRUE(first);
  auto other = q.Acquire("gpu:1", none, nullptr);
  EXPECT_TRUE(other) << "another device does not wait";
  std::atomic<int> ahead{-1};
  std::thread cancelled_waiter([&] {
    auto t = q.Acquire("gpu:0", cancelled, [&](int n) { ahead = n; });
    EXPECT_FALSE(t);
  });
  while (ahead < 0) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(ahead, 1);
  cancelled.Cancel();
  cancelled_waiter.join();
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    auto t = q.Acquire("gpu:0", none, nullptr);
    got = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(got);
  first.reset();
  waiter.join();
  EXPECT_TRUE(got);
}

// A request that runs `argv`, with no progress log.
ChildRequest Command(std::vector<std::string> argv) {
  ChildRequest r;
  r.argv = std::move(argv);
  return r;
}

TEST(McpProcessRunnerTest, ReturnsOutputAndExitCode) {
  ProcessRunner runner;
  CancelFlag cancel;
  auto o =
      runner.Run(Command({"/bin/sh", "-c", "echo '{\"a\":1}'; echo oops >&2; exit 3"}), cancel, {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->out, "{\"a\":1}\n");
  EXPECT_EQ(o->err, "oops\n");
  EXPECT_EQ(o->exit_code, 3);
  EXPECT_FALSE(runner.Run(Command({"/no/such/program"}), cancel, {}).ok());
}

TEST(McpProcessRunnerTest, CancellingStopsTheWholeTreeEvenAGroupOfItsOwn) {
  ProcessRunner runner(200ms);
  CancelFlag cancel;
  std::vector<pid_t> seen;
  std::thread canceller([&] {
    // Until the grandchildren exist.
    for (int i = 0; i < 200 && DescendantsOf(getpid()).size() < 3; ++i)
      std::this_thread::sleep_for(10ms);
    // Recorded now: once cancelled, a setsid grandchild whose parent died is
    // init's, no descendant of this process, and only its pid finds it.
    seen = DescendantsOf(getpid());
    cancel.Cancel();
  });
  // A child ignoring SIGTERM, a grandchild in a process group of its own
  // (as a compiler is), and one in the child's group.
  auto o = runner.Run(Command({"/bin/sh", "-c", "trap '' TERM; setsid sleep 60 & sleep 60 & wait"}),
                      cancel, {});
  canceller.join();
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->cancelled);
  ASSERT_GE(seen.size(), 3u) << "the shell and both sleeps ran";
  std::this_thread::sleep_for(100ms);
  for (pid_t p : DescendantsOf(getpid())) seen.push_back(p);
  for (pid_t p : seen) {
    if (kill(p, 0) != 0 && errno == ESRCH) continue;  // gone
    auto read = ReadFile("/proc/" + std::to_string(p) + "/stat");
    std::string stat = read.ok() ? *read : "";
    EXPECT_NE(stat.find(") Z"), std::string::npos) << "still running: " << stat;
  }
}

TEST(McpProcessRunnerTest, SaysProgressLinesWithoutTheirTimestamps) {
  ProcessRunner runner;
  CancelFlag cancel;
  TempDirOwner dir(MakeTempDir(fs::temp_directory_path(), "mcp-progress-").value());
  fs::path log = dir.path() / "progress.log";
  std::vector<std::string> lines;
  ChildRequest r;
  r.argv = {
      "/bin/sh", "-c",
      "echo '2026-01-02 03:04:05 hone eval softmax: build' >> " + log.string() + "; sleep 0.5"};
  r.progress_log = log;
  ASSERT_TRUE(runner.Run(r, cancel, [&](const std::string& l) { lines.push_back(l); }).ok());
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "hone eval softmax: build");
}

}  // namespace
}  // namespace hone::mcp
