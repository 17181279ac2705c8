// The service's queue end to end with real workers: three `hone worker
// --backend cpu` processes and a redis-server of the test's own on a
// loopback port take 500 submissions (duplicates and conflicts among them)
// of a tiny native CPU task. Meanwhile one worker is killed with SIGKILL
// mid-evaluation and restarted, the submitting side (the server's queue
// client) is thrown away and made again, and two jobs carry a candidate
// that kills every worker that takes it (HONE_WORKER_TEST_CRASH_ON, a
// test-only hook of the worker), which must be dead-lettered after
// --max-attempts tries. At the end every job has exactly one result, each
// the verdict its candidate deserves, and the only infra errors are the
// dead letters. Skipped when redis-server is missing.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "integration/test_env.h"
#include "serve/redis_job_queue.h"
#include "support/redis_server.h"

namespace hone {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using testing::SourceDir;

constexpr int kWorkers = 3;
constexpr int kMaxAttempts = 3;
constexpr const char* kCrashMarker = "HONE_TEST_KILLS_THE_WORKER";

struct ServedCandidate {
  std::string code, status;  // the verdict it deserves
};

// The catalogue's candidates with a line of their own: the compile cache is
// keyed by content and keeps the first build's file name in its log, so
// these builds (of "candidate.cpp") must not stand in for other tests'.
std::map<std::string, ServedCandidate> Candidates() {
  auto read = [](const char* f) {
    return *ReadFile(SourceDir() / "tests/adversarial/cpu" / f) + "// served by a worker\n";
  };
  std::string correct = read("correct.cpp");
  std::string wrong = correct;
  wrong.replace(wrong.find("2.0f * b[i]"), 11, "b[i]");
  return {{"correct", {correct, "passed"}},
          {"wrong", {wrong, "incorrect"}},
          {"compile", {read("compile_error.cpp"), "compile_error"}},
          {"segfault", {read("segfault.cpp"), "runtime_error"}},
          {"killer", {correct + "\n// " + kCrashMarker + "\n", "infra_error"}}};
}

// The kind of candidate job `k` carries: mostly correct, some of each failure.
std::string KindOf(int k) {
  static const char* kinds[] = {"correct", "correct",  "wrong",   "correct", "compile",
                                "correct", "segfault", "correct", "wrong",   "correct"};
  return kinds[k % 10];
}

struct Request {
  std::string id, kind;
};

// 500 requests: 440 jobs, 2 worker killers, 55 duplicates (the same id
// and content again, in the first half or the second) and 3 conflicts (an
// id again with another candidate).
std::vector<Request> Requests() {
  std::vector<Request> r;
  for (int k = 0; k < 440; ++k) r.push_back({"job-" + std::to_string(k), KindOf(k)});
  r.insert(r.begin() + 100, {"killer-0", "killer"});
  r.insert(r.begin() + 300, {"killer-1", "killer"});
  for (int d = 0; d < 55; ++d) {
    int k = (d * 37) % 440;
    r.insert(r.begin() + 200 + d * 5, {"job-" + std::to_string(k), KindOf(k)});
  }
  for (int c = 0; c < 3; ++c)
    r.push_back({"job-" + std::to_string(c * 11), KindOf(c * 11) == "wrong" ? "correct" : "wrong"});
  return r;
}

struct WorkerProcess {
  pid_t pid = -1;
  std::string name;
  std::vector<std::string> logs;
};

// What the workers' --json lines say.
struct Logged {
  std::map<std::string, int> stored;  // id -> how many workers stored a result for it
  int lines = 0, already_done = 0;
};

class ServeWorkersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = TestRedisServer::Start();
    if (!s.ok()) GTEST_SKIP() << "no redis-server for this test: " << s.status().message();
    server_ = std::move(*s);
    dir_ = *MakeTempDir(fs::temp_directory_path(), "hone-serve-e2e");
    // Inherited by the workers: the test-only hook that kills a worker.
    setenv("HONE_WORKER_TEST_CRASH_ON", kCrashMarker, 1);
  }
  void TearDown() override {
    for (auto& w : workers_)
      if (w.pid > 0) {
        kill(-w.pid, SIGKILL);
        waitpid(w.pid, nullptr, 0);
      }
    unsetenv("HONE_WORKER_TEST_CRASH_ON");
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  std::unique_ptr<RedisJobQueue> OpenQueue() {
    RedisQueueOptions o;
    o.lease = 2s;
    o.max_attempts = kMaxAttempts;
    auto q = RedisJobQueue::Open(server_->client_options(), o);
    EXPECT_TRUE(q.ok()) << q.status().message();
    return q.ok() ? std::move(q).value() : nullptr;
  }

  void Spawn(WorkerProcess& w) {
    std::string log = (dir_ / (w.name + "-" + std::to_string(w.logs.size()) + ".jsonl")).string();
    w.logs.push_back(log);
    w.pid = testing::SpawnHone(
        {"worker", "--backend", "cpu", "--redis", server_->address(), "--problems",
         (SourceDir() / "tests/integration").string(), "--consumer", w.name, "--max-attempts",
         std::to_string(kMaxAttempts), "--lease-seconds", "2", "--block-seconds", "0.5",
         "--no-time", "--json"},
        log);
  }

  // Restarts workers that died (the crash hook), counting them.
  void Reap() {
    for (auto& w : workers_) {
      int status = 0;
      if (waitpid(w.pid, &status, WNOHANG) != w.pid) continue;
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
          << w.name << " ended otherwise: " << *ReadFile(w.logs.back());
      ++crashes_;
      Spawn(w);
    }
  }

  void Submit(JobQueue& q, const std::vector<Request>& requests, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      EvalJob job;
      job.id = requests[i].id;
      job.problem_name = "fixture_add";
      job.candidate_kind = "cpp";
      job.candidate_code = candidates_[requests[i].kind].code;
      auto o = q.Submit(job);
      ASSERT_TRUE(o.ok()) << o.status().message();
      ++outcomes_[*o];
      if (*o == SubmitOutcome::kCreated) expected_[job.id] = requests[i].kind;
      if (*o == SubmitOutcome::kConflict) {
        EXPECT_NE(expected_[job.id], requests[i].kind);
      }
    }
  }

  // The job a worker holds now, if any (XPENDING of the consumer group).
  std::string HeldBy(const std::string& consumer) {
    RedisClient c(server_->client_options());
    auto r = c.Command({"XPENDING", "hone:jobs", "workers", "-", "+", "10", consumer});
    if (!r.ok() || r->elements.empty()) return "";
    const std::string& entry = r->elements[0].elements[0].str;
    auto e = c.Command({"XRANGE", "hone:jobs", entry, entry});
    if (!e.ok() || e->elements.empty()) return "";
    return e->elements[0].elements[1].elements[1].str;
  }

  // Once results flow, kills w1 with SIGKILL while it holds a job (not a
  // killer's) and starts it again; returns that job's id.
  std::string KillOneMidJob(JobQueue& server, Clock::time_point deadline) {
    while (Clock::now() < deadline) {
      Reap();
      std::string held = server.Stats()->done >= 40 ? HeldBy("w1") : "";
      if (!held.empty() && held.rfind("killer", 0) != 0) {
        kill(-workers_[1].pid, SIGKILL);
        waitpid(workers_[1].pid, nullptr, 0);
        Spawn(workers_[1]);
        return held;
      }
      std::this_thread::sleep_for(20ms);
    }
    return "";
  }

  // Waits for every job's result, woken by completions; true when all came.
  bool WaitForAll(JobQueue& server, Clock::time_point deadline) {
    std::vector<std::string> waiting;
    for (const auto& [id, kind] : expected_) waiting.push_back(id);
    while (!waiting.empty() && Clock::now() < deadline) {
      Reap();
      auto done = server.WaitForAny(waiting, 1s);
      if (!done.ok()) return false;
      std::set<std::string> d(done->begin(), done->end());
      std::erase_if(waiting, [&](const std::string& id) { return d.count(id) > 0; });
    }
    return waiting.empty();
  }

  // Every job's one result is the verdict its candidate deserves; the only
  // infra errors are the dead letters. Counts by status.
  std::map<std::string, int> CheckResults(JobQueue& server) {
    std::map<std::string, int> by_status;
    for (const auto& [id, kind] : expected_) {
      auto r = server.GetResult(id);
      EXPECT_TRUE(r.ok() && *r) << id;
      if (!r.ok() || !*r) continue;
      EXPECT_EQ((*r)->id, id);
      EXPECT_EQ((*r)->status, candidates_[kind].status) << id << ": " << (*r)->error_msg;
      if (kind == "killer") {
        EXPECT_EQ((*r)->attempts, kMaxAttempts) << id;
      } else {
        EXPECT_FALSE((*r)->infra_error()) << id << ": " << (*r)->error_msg;
      }
      ++by_status[(*r)->status];
    }
    return by_status;
  }

  // SIGTERM: each worker finishes what it holds and exits 0.
  void StopWorkers() {
    for (auto& w : workers_) kill(w.pid, SIGTERM);
    for (auto& w : workers_) {
      int status = 0;
      waitpid(w.pid, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << w.name;
      w.pid = -1;
    }
  }

  Logged ReadLogs() const {
    Logged l;
    for (const auto& w : workers_)
      for (const auto& log : w.logs) {
        std::ifstream in(log);
        for (std::string line; std::getline(in, line);) {
          json j = json::parse(line, nullptr, false);
          if (!j.is_object() || j.value("event", "") != "job") continue;
          ++l.lines;
          if (j.value("stored", false))
            ++l.stored[j["id"].get<std::string>()];
          else
            ++l.already_done;
        }
      }
    return l;
  }

  std::unique_ptr<TestRedisServer> server_;
  fs::path dir_;
  std::vector<WorkerProcess> workers_;
  std::map<std::string, ServedCandidate> candidates_ = Candidates();
  std::map<std::string, std::string> expected_;  // id -> kind of its first submission
  std::map<SubmitOutcome, int> outcomes_;
  int crashes_ = 0;  // workers the killer candidate took down
};

TEST_F(ServeWorkersTest, FiveHundredRequestsKillsAndADeadLetter) {
  auto start = Clock::now();
  auto deadline = start + 150s;
  for (int i = 0; i < kWorkers; ++i) workers_.push_back({-1, "w" + std::to_string(i), {}});
  for (auto& w : workers_) Spawn(w);
  auto requests = Requests();
  ASSERT_EQ(requests.size(), 500u);
  auto server = OpenQueue();
  ASSERT_TRUE(server);
  Submit(*server, requests, 0, 250);
  std::string killed_job = KillOneMidJob(*server, deadline);
  ASSERT_FALSE(killed_job.empty()) << "w1 never held a job to be killed with";
  // The server restarts: a new client, the same queue.
  server = OpenQueue();
  ASSERT_TRUE(server);
  Submit(*server, requests, 250, requests.size());
  EXPECT_EQ(outcomes_[SubmitOutcome::kCreated], 442);
  EXPECT_EQ(outcomes_[SubmitOutcome::kAttached], 55);
  EXPECT_EQ(outcomes_[SubmitOutcome::kConflict], 3);

  ASSERT_TRUE(WaitForAll(*server, deadline)) << "jobs without a result after 150 s";
  double wall = std::chrono::duration<double>(Clock::now() - start).count();
  auto by_status = CheckResults(*server);
  auto killed = server->GetResult(killed_job);
  ASSERT_TRUE(killed.ok() && *killed);
  EXPECT_GE((*killed)->attempts, 2) << "the killed worker's job was taken again";
  auto stats = server->Stats();
  EXPECT_EQ(stats->queued, 0);
  EXPECT_EQ(stats->running, 0);
  EXPECT_EQ(stats->done, 442);
  EXPECT_EQ(stats->dead, 2);

  StopWorkers();
  Logged logged = ReadLogs();
  for (const auto& [id, n] : logged.stored) EXPECT_EQ(n, 1) << id << " stored " << n << " times";
  // 440 stored by workers (the dead letters by the queue); w1 may have
  // died between storing a result and saying so.
  EXPECT_GE(static_cast<int>(logged.stored.size()), 440 - 1);
  EXPECT_EQ(crashes_, 2 * kMaxAttempts) << "each killer took down " << kMaxAttempts << " workers";
  std::printf(
      "serve e2e: 500 requests (442 jobs, 55 duplicates attached, 3 conflicts), %d workers, "
      "1 kill -9 mid-evaluation (%s, attempts %d), %d worker deaths by the killer candidate, "
      "2 dead-lettered; %d evaluations logged (%d found a result already); passed %d, "
      "incorrect %d, compile_error %d, runtime_error %d, infra_error %d; wall %.1f s\n",
      kWorkers, killed_job.c_str(), (*killed)->attempts, crashes_, logged.lines,
      logged.already_done, by_status["passed"], by_status["incorrect"], by_status["compile_error"],
      by_status["runtime_error"], by_status["infra_error"], wall);
}

}  // namespace
}  // namespace hone
