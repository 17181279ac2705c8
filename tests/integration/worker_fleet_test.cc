// `hone worker --lanes 2` (the CPU form of `--devices`): one command starts
// two worker processes under a supervisor, both serve the queue of a
// private redis-server under their own consumer names, a worker killed
// with SIGKILL is started again, and one SIGTERM to the supervisor stops
// them all cleanly (exit 0). Skipped when redis-server is missing. And the
// --devices and --lanes that cannot apply are refused before anything
// starts (exit 2, naming the flag), Redis or not.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "cli/device_list.h"
#include "integration/test_env.h"
#include "serve/redis_job_queue.h"
#include "support/redis_server.h"

namespace hone {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using testing::SourceDir;

// The processes whose parent is `pid`, from /proc.
std::set<pid_t> ChildrenOf(pid_t pid) {
  std::set<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == pid && state != "Z") out.insert(std::stoi(name));
  }
  return out;
}

// Waits until `pid` has `n` live children other than `not_these`.
std::set<pid_t> WaitForChildren(pid_t pid, size_t n, const std::set<pid_t>& not_these,
                                std::chrono::seconds within) {
  auto until = Clock::now() + within;
  while (Clock::now() < until) {
    std::set<pid_t> now = ChildrenOf(pid);
    size_t fresh = 0;
    for (pid_t c : now) fresh += !not_these.count(c);
    if (now.size() == n && fresh > 0) return now;
    std::this_thread::sleep_for(50ms);
  }
  return ChildrenOf(pid);
}

class WorkerFleetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = TestRedisServer::Start();
    if (!s.ok()) GTEST_SKIP() << "no redis-server for this test: " << s.status().message();
    server_ = std::move(*s);
    dir_ = *MakeTempDir(fs::temp_directory_path(), "hone-worker-fleet");
    code_ = *ReadFile(SourceDir() / "tests/adversarial/cpu/correct.cpp") + "// served by a fleet\n";
  }
  void TearDown() override {
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  std::unique_ptr<RedisJobQueue> OpenQueue() {
    RedisQueueOptions o;
    o.lease = 2s;
    auto q = RedisJobQueue::Open(server_->client_options(), o);
    EXPECT_TRUE(q.ok()) << q.status().message();
    return q.ok() ? std::move(q).value() : nullptr;
  }

  // Submits jobs `from`..`to`-1 and waits for all their results.
  void Serve(JobQueue& q, int from, int to) {
    std::vector<std::string> ids;
    for (int k = from; k < to; ++k) {
      EvalJob job;
      job.id = "fleet-job-" + std::to_string(k);
      job.problem_name = "fixture_add";
      job.candidate_kind = "cpp";
      job.candidate_code = code_;
      ASSERT_TRUE(q.Submit(job).ok());
      ids.push_back(job.id);
    }
    auto deadline = Clock::now() + 120s;
    std::vector<std::string> waiting = ids;
    while (!waiting.empty() && Clock::now() < deadline) {
      auto done = q.WaitForAny(waiting, 1s);
      ASSERT_TRUE(done.ok());
      std::set<std::string> d(done->begin(), done->end());
      std::erase_if(waiting, [&](const std::string& id) { return d.count(id) > 0; });
    }
    ASSERT_TRUE(waiting.empty()) << waiting.size() << " jobs without a result; log:\n" << Log();
    for (const auto& id : ids) {
      auto r = q.GetResult(id);
      ASSERT_TRUE(r.ok() && *r) << id;
      EXPECT_EQ((*r)->status, "passed") << id << ": " << (*r)->error_msg;
    }
  }

  // The consumer names the group has seen (XINFO CONSUMERS).
  std::set<std::string> Consumers() {
    RedisClient c(server_->client_options());
    auto r = c.Command({"XINFO", "CONSUMERS", "hone:jobs", "workers"});
    std::set<std::string> names;
    if (!r.ok()) return names;
    for (const auto& consumer : r->elements)
      for (size_t i = 0; i + 1 < consumer.elements.size(); i += 2)
        if (consumer.elements[i].str == "name") names.insert(consumer.elements[i + 1].str);
    return names;
  }

  std::string Log() const {
    auto text = ReadFile(dir_ / "fleet.log");
    return text.ok() ? *text : "";
  }

  std::unique_ptr<TestRedisServer> server_;
  fs::path dir_;
  std::string code_;
  pid_t pid_ = -1;
};

TEST_F(WorkerFleetTest, TwoLanesServeRestartAndStopTogether) {
  pid_ = testing::SpawnHone(
      {"worker", "--backend", "cpu", "--lanes", "2", "--redis", server_->address(), "--problems",
       (SourceDir() / "tests/integration").string(), "--consumer", "fleet", "--lease-seconds", "2",
       "--block-seconds", "0.5", "--no-time", "--json"},
      (dir_ / "fleet.log").string());
  std::set<pid_t> children = WaitForChildren(pid_, 2, {}, 30s);
  ASSERT_EQ(children.size(), 2u) << Log();
  auto queue = OpenQueue();
  ASSERT_TRUE(queue);
  Serve(*queue, 0, 6);
  EXPECT_EQ(Consumers(), (std::set<std::string>{"fleet-cpu0", "fleet-cpu1"})) << Log();

  // A worker that dies is started again (after the first back-off, 1 s).
  pid_t victim = *children.begin();
  kill(victim, SIGKILL);
  std::set<pid_t> after = WaitForChildren(pid_, 2, children, 30s);
  ASSERT_EQ(after.size(), 2u) << Log();
  EXPECT_FALSE(after.count(victim));
  Serve(*queue, 6, 10);

  // One SIGTERM to the supervisor: every worker stops, and so does it.
  kill(pid_, SIGTERM);
  int status = 0;
  auto until = Clock::now() + 60s;
  while (waitpid(pid_, &status, WNOHANG) != pid_ && Clock::now() < until)
    std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(WIFEXITED(status)) << "the supervisor did not stop:\n" << Log();
  EXPECT_EQ(WEXITSTATUS(status), 0) << Log();
  pid_ = -1;
  for (pid_t c : after) EXPECT_NE(kill(c, 0), 0) << "worker " << c << " outlived its supervisor";

  // Each worker alive at the stop said goodbye; the killed one could not.
  std::ifstream in(dir_ / "fleet.log");
  std::set<std::string> exited;
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    if (j.is_object() && j.value("event", "") == "exit")
      exited.insert(j.value("consumer", std::string()));
  }
  EXPECT_EQ(exited, (std::set<std::string>{"fleet-cpu0", "fleet-cpu1"})) << Log();
  std::string log = Log();
  EXPECT_NE(log.find("was killed by signal 9 unexpectedly; starting it again"), std::string::npos)
      << log;
  EXPECT_NE(log.find("all 2 workers stopped (1 restarts)"), std::string::npos) << log;
}

TEST(WorkerDevicesTest, RefusedBeforeAnythingStarts) {
  std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"worker", "--backend", "cpu", "--devices", "all"},
       "--devices: the cpu backend has no devices"},
      {{"worker", "--backend", "cuda", "--lanes", "2"},
       "--lanes: parallel lanes are for the cpu backend"},
      {{"worker", "--devices", "0,x"}, "--devices: 'x' in '0,x' is not a device index"},
      {{"worker", "--devices", "1-0"}, "--devices: the range 1-0 runs backwards"},
      {{"worker", "--backend", "cpu", "--lanes", "0"}, "--lanes"},
  };
  if (cli::DeviceCount("cuda") == 0) {
    cases.push_back({{"worker", "--devices", "all"}, "--devices all: no GPU is present"});
    cases.push_back({{"worker", "--devices", "0"}, "--devices: GPU 0 is not present"});
  }
  // A worker without a problem folder would swallow every job naming one.
  cases.push_back({{"worker", "--backend", "cpu"}, "--problems: required"});
  std::string problems = (SourceDir() / "tests/integration").string();
  for (auto& [args, says] : cases) {
    if (says.find("--problems") == std::string::npos)
      args.insert(args.end(), {"--problems", problems});
    auto r = testing::RunHone(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << " " << args[2] << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
  }
}

// Times that are not finite are refused before Redis is tried (its address
// here could not be reached: a check let through would exit 1, not 2).
TEST(WorkerFlagsTest, TimesThatAreNotFiniteExitTwoNamingTheFlag) {
  const std::string problems = (SourceDir() / "tests/integration").string();
  for (const char* flag : {"--lease-seconds", "--block-seconds", "--connect-timeout"}) {
    for (const char* bad : {"nan", "inf", "-1"}) {
      std::vector<std::string> args = {"worker",  "--backend",   "cpu", "--problems", problems,
                                       "--redis", "127.0.0.1:1", flag,  bad};
      if (std::string(flag) != "--connect-timeout")
        args.insert(args.end(), {"--connect-timeout", "0"});
      auto r = testing::RunHone(args);
      EXPECT_EQ(r.exit_code, 2) << flag << " " << bad << "\n" << r.output;
      EXPECT_NE(r.output.find(std::string(flag) + ": "), std::string::npos)
          << flag << " " << bad << "\n"
          << r.output;
    }
  }
}

}  // namespace
}  // namespace hone
