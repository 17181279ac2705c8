// The supervisor of `hone worker --devices` (serve/worker_fleet.h) over
// small shell children: a child that finishes is not started again, one
// that dies is (after its back-off), one whose command line is refused is
// not, a stop sends SIGTERM once and waits for all; and a child's command
// line is the parent's without the options that spread it.
#include "serve/worker_fleet.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "core/fs.h"

namespace hone {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

FleetMember Shell(const std::string& name, const std::string& script) {
  return {name, {"/bin/sh", "-c", script}};
}

FleetOptions Quick() {
  FleetOptions o;
  o.backoff_min = 20ms;
  o.backoff_max = 80ms;
  o.stable_after = 10s;
  o.poll = 5ms;
  return o;
}

struct Said {
  std::mutex mu;
  std::vector<std::string> lines;
  WorkerFleet::SayFn Fn() {
    return [this](const std::string& l) {
      std::lock_guard lock(mu);
      lines.push_back(l);
    };
  }
  int Count(const std::string& text) {
    std::lock_guard lock(mu);
    int n = 0;
    for (const auto& l : lines) n += l.find(text) != std::string::npos;
    return n;
  }
};

class WorkerFleetTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakeTempDir(fs::temp_directory_path(), "hone-fleet"); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string File(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(WorkerFleetTest, FinishedChildrenAreNotStartedAgain) {
  Said said;
  std::atomic<bool> stop{false};
  std::string runs = File("runs");
  WorkerFleet fleet({Shell("a", "echo a >> " + runs), Shell("b", "echo b >> " + runs)}, Quick(),
                    said.Fn());
  FleetResult r = fleet.Run(stop);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.restarts, 0);
  auto text = ReadFile(runs);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->size(), 4u) << *text;  // "a\n" and "b\n", once each
  EXPECT_EQ(said.Count(": started (pid "), 2);
  EXPECT_EQ(said.Count(": exited 0"), 2);
}

// A child that fails twice (exit 1, then killed by a signal) is started
// again each time and then finishes; the other child is left alone.
TEST_F(WorkerFleetTest, ADeadChildIsStartedAgainWithBackoff) {
  Said said;
  std::atomic<bool> stop{false};
  std::string count = File("count");
  std::string script = "n=$(cat " + count + " 2>/dev/null || echo 0); echo $((n+1)) > " + count +
                       "; case $n in 0) exit 1;; 1) kill -9 $$;; esac; exit 0";
  auto start = std::chrono::steady_clock::now();
  WorkerFleet fleet({Shell("flaky", script), Shell("steady", "exit 0")}, Quick(), said.Fn());
  FleetResult r = fleet.Run(stop);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.restarts, 2);
  EXPECT_EQ(*ReadFile(count), "3\n");
  EXPECT_EQ(said.Count("flaky: exited 1 unexpectedly; starting it again in 0.0 s"), 1);
  EXPECT_EQ(said.Count("flaky: was killed by signal 9 unexpectedly; starting it again in 0.0 s"),
            1);
  EXPECT_EQ(said.Count("steady: started"), 1);
  EXPECT_GE(took, 20ms + 40ms);  // the back-off doubled
}

TEST_F(WorkerFleetTest, RefusedOrUnrunnableChildrenAreNotStartedAgain) {
  Said said;
  std::atomic<bool> stop{false};
  WorkerFleet fleet({Shell("refused", "exit 2"), {"missing", {"/nonexistent/hone", "worker"}}},
                    Quick(), said.Fn());
  FleetResult r = fleet.Run(stop);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.restarts, 0);
  EXPECT_EQ(said.Count("refused: exited 2: its command line was refused; not started again"), 1);
  EXPECT_EQ(said.Count("missing: exited 127: it could not be run; not started again"), 1);
}

// A stop sends each running child one SIGTERM and waits for it to finish
// its work; a child waiting for its restart stays down.
TEST_F(WorkerFleetTest, AStopEndsEveryChildWithOneSigterm) {
  Said said;
  std::atomic<bool> stop{false};
  std::string terms = File("terms");
  // Finishes its "job" (a short sleep) after SIGTERM, then exits 0.
  std::string worker =
      "trap 'echo term >> " + terms + "; sleep 0.1; exit 0' TERM; while :; do sleep 0.01; done";
  FleetOptions o = Quick();
  o.backoff_min = o.backoff_max = 10s;  // the crashing child waits long for its restart
  WorkerFleet fleet({Shell("w0", worker), Shell("w1", worker), Shell("crash", "exit 3")}, o,
                    said.Fn());
  std::thread stopper([&] {
    while (said.Count("crash: exited 3 unexpectedly") == 0) std::this_thread::sleep_for(5ms);
    std::this_thread::sleep_for(100ms);
    stop = true;
  });
  auto start = std::chrono::steady_clock::now();
  FleetResult r = fleet.Run(stop);
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "the waiting child held the stop up";
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(*ReadFile(terms), "term\nterm\n");
  EXPECT_EQ(said.Count("stopping"), 1);
  EXPECT_EQ(said.Count("w0: exited 0"), 1);
  EXPECT_EQ(said.Count("w1: exited 0"), 1);
  EXPECT_EQ(said.Count("crash: started"), 1);
}

TEST(WithoutOptions, DropsSpacedAndJoinedForms) {
  std::vector<std::string> argv = {"/usr/bin/hone", "worker",       "--devices", "all", "--redis",
                                   "h:1",           "--consumer=n", "--device",  "3",   "--no-time",
                                   "--lanes=2"};
  EXPECT_EQ(WithoutOptions(argv, {"--devices", "--lanes", "--device", "--consumer"}),
            (std::vector<std::string>{"/usr/bin/hone", "worker", "--redis", "h:1", "--no-time"}));
  // A prefix is not the option: --devices-x stays; --device does not eat --devices.
  EXPECT_EQ(WithoutOptions({"hone", "--devicesx", "1", "--devices", "0"}, {"--device"}),
            (std::vector<std::string>{"hone", "--devicesx", "1", "--devices", "0"}));
}

}  // namespace
}  // namespace hone
