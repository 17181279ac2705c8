// The service queue's cost, not the kernels'. Two measurements against a
// redis-server of its own on a loopback port (tests/support/redis_server.h):
//
//  1. queue overhead per job, no evaluation: Submit -> Take -> Complete ->
//     GetResult, one job at a time (latency, p50/p99 per step and per job),
//     then N jobs in flight (jobs per second through the queue);
//  2. evaluations per second of a tiny native CPU task (fixture_add,
//     verification only) through 1, 2 and 4 `hone worker --backend cpu`
//     processes, against `hone bench` evaluating the same number of
//     candidates directly.
//
// Results go to docs/PERFORMANCE.md.
//
//   build/bench/queue_bench [--jobs N] [--evals M] [--workers 1,2,4]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "bench_source_dir.h"
#include "core/fs.h"
#include "core/subprocess.h"
#include "serve/redis_job_queue.h"
#include "support/redis_server.h"

namespace {

using namespace hone;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

std::string Hone() { return std::string(HONE_BENCH_BINARY_DIR) + "/hone"; }

EvalJob Job(const std::string& id, const std::string& code) {
  EvalJob j;
  j.id = id;
  j.problem_name = "fixture_add";
  j.candidate_kind = "cpp";
  j.candidate_code = code;
  return j;
}

void QueueOverhead(TestRedisServer& redis, int n) {
  RedisQueueOptions o;
  o.prefix = "bench1:";
  auto server = RedisJobQueue::Open(redis.client_options(), o).value();
  auto worker = RedisJobQueue::Open(redis.client_options(), o).value();
  std::string code(2000, 'x');  // about a small kernel's size
  std::vector<double> submit, take, complete, result, total;
  EvalResult r;
  r.status = "passed";
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    (void)server->Submit(Job("seq-" + std::to_string(i), code));
    auto t1 = Clock::now();
    auto lease = worker->Take("w", 100ms);
    auto t2 = Clock::now();
    r.id = (*lease)->job.id;
    (void)worker->Complete(**lease, r);
    auto t3 = Clock::now();
    (void)server->GetResult(r.id);
    auto t4 = Clock::now();
    submit.push_back(Ms(t1 - t0));
    take.push_back(Ms(t2 - t1));
    complete.push_back(Ms(t3 - t2));
    result.push_back(Ms(t4 - t3));
    total.push_back(Ms(t4 - t0));
  }
  std::printf("queue, one job at a time (%d jobs): ms p50/p99\n", n);
  auto row = [](const char* what, const std::vector<double>& v) {
    std::printf("  %-28s %.3f / %.3f\n", what, Pct(v, 0.5), Pct(v, 0.99));
  };
  row("Submit", submit);
  row("Take", take);
  row("Complete", complete);
  row("GetResult", result);
  row("submit->result, per job", total);
  // In flight: all submitted, then taken and completed, then read.
  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) (void)server->Submit(Job("flight-" + std::to_string(i), code));
  for (int i = 0; i < n; ++i) {
    auto lease = worker->Take("w", 100ms);
    r.id = (*lease)->job.id;
    (void)worker->Complete(**lease, r);
  }
  for (int i = 0; i < n; ++i) (void)server->GetResult("flight-" + std::to_string(i));
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("queue, %d jobs in flight, one worker connection: %.0f jobs/s (%.3f ms per job)\n", n,
              n / s, s * 1000 / n);
}

// Submits n jobs and waits for all their results.
void SubmitAndWait(JobQueue& server, const std::string& prefix, int n, const std::string& code) {
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    ids.push_back(prefix + std::to_string(i));
    (void)server.Submit(Job(ids.back(), code));
  }
  while (!ids.empty()) {
    auto done = server.WaitForAny(ids, 1s);
    if (done.ok())
      for (const auto& d : *done) std::erase(ids, d);
  }
}

pid_t SpawnWorker(const std::string& address, const std::string& prefix, int i) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    std::string problems = (BenchSourceDir() / "tests/integration").string();
    std::string consumer = "bench-" + std::to_string(i);
    execl(Hone().c_str(), Hone().c_str(), "worker", "--backend", "cpu", "--redis", address.c_str(),
          "--key-prefix", prefix.c_str(), "--problems", problems.c_str(), "--consumer",
          consumer.c_str(), "--no-time", "--quiet", "--block-seconds", "0.5",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Evaluations per second through `workers` worker processes.
double ThroughWorkers(TestRedisServer& redis, int workers, int evals, const std::string& code) {
  RedisQueueOptions o;
  o.prefix = "bench-w" + std::to_string(workers) + ":";
  auto server = RedisJobQueue::Open(redis.client_options(), o).value();
  std::vector<pid_t> pids;
  for (int i = 0; i < workers; ++i) pids.push_back(SpawnWorker(redis.address(), o.prefix, i));
  // A warm-up job per worker (process start, machine cache, builds).
  SubmitAndWait(*server, "warm-", workers, code);
  auto t0 = Clock::now();
  SubmitAndWait(*server, "eval-", evals, code);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  for (pid_t p : pids) kill(p, SIGTERM);
  for (pid_t p : pids) waitpid(p, nullptr, 0);
  return evals / s;
}

// Evaluations per second of `hone bench` on a suite of `evals` copies of the candidate.
double DirectBench(int evals, const std::string& code) {
  fs::path dir = *MakeTempDir(fs::temp_directory_path(), "hone-queue-bench");
  fs::path task = dir / "suite/fixture_add";
  fs::create_directories(task.parent_path());
  fs::copy(BenchSourceDir() / "tests/integration/fixture_add", task, fs::copy_options::recursive);
  fs::create_directories(task / "solutions");
  for (int i = 0; i < evals; ++i)
    (void)WriteFileAtomic(task / "solutions" / ("s" + std::to_string(i) + ".cpp"), code);
  CommandOptions co;
  co.timeout = std::chrono::minutes(30);
  auto t0 = Clock::now();
  auto r = RunCommand({Hone(), "bench", (dir / "suite").string(), "--backend", "cpu", "--no-time",
                       "--store", (dir / "store.db").string(), "-q"},
                      co);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!r.ok())
    std::fprintf(stderr, "hone bench: %s\n", r.status().message().c_str());
  else if (!r->succeeded())
    std::fprintf(stderr, "hone bench failed:\n%s\n", r->output.c_str());
  fs::remove_all(dir);
  return evals / s;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  int jobs = 2000, evals = 100;
  std::vector<int> counts = {1, 2, 4};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--jobs")) jobs = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--evals")) evals = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--workers")) {
      counts.clear();
      std::stringstream in(argv[i + 1]);
      for (std::string c; std::getline(in, c, ',');) counts.push_back(std::atoi(c.c_str()));
    }
  }
  auto redis = TestRedisServer::Start();
  if (!redis.ok()) {
    std::fprintf(stderr, "queue_bench: %s\n", redis.status().message().c_str());
    return 1;
  }
  setenv("HONE_CACHE", (std::string(HONE_BENCH_BINARY_DIR) + "/test-cache").c_str(), 0);
  QueueOverhead(**redis, jobs);
  std::string code = *ReadFile(BenchSourceDir() / "tests/adversarial/cpu/correct.cpp");
  std::printf("evaluations of fixture_add (verification only, %d per measurement):\n", evals);
  std::printf("  hone bench, directly:        %.2f evaluations/s\n", DirectBench(evals, code));
  for (int w : counts)
    std::printf("  through %d worker(s):         %.2f evaluations/s\n", w,
                ThroughWorkers(**redis, w, evals, code));
  return 0;
}
