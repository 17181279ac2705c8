// The pure parts of the queue and the worker: Redis addresses, queue
// options, the scripts' table, problem resolution and job folders, a job's
// backend and config, and the worker loop over an in-memory queue and a
// scripted evaluator (no Redis, no evaluation).
#include <gtest/gtest.h>

#include <deque>
#include <mutex>

#include "core/fs.h"
#include "format/builtin_formats.h"
#include "lang/builtin.h"
#include "serve/job_evaluator.h"
#include "serve/job_files.h"
#include "serve/redis_job_queue.h"
#include "serve/redis_queue_scripts.h"
#include "serve/worker.h"

namespace hone {
namespace {

// Options naming the built-in registries, as `hone worker` passes them.
WorkerOptions WithRegistries() {
  WorkerOptions o;
  o.formats = &BuiltInFormats();
  o.languages = &BuiltInLanguages();
  return o;
}

using namespace std::chrono_literals;

TEST(RedisAddress, Parses) {
  auto a = ParseRedisAddress("10.0.0.5:7000");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "10.0.0.5");
  EXPECT_EQ(a->port, 7000);
  EXPECT_EQ(ParseRedisAddress("redis.local")->port, 6379);
  EXPECT_EQ(ParseRedisAddress("[::1]:6380")->host, "::1");
  EXPECT_EQ(ParseRedisAddress("[::1]:6380")->port, 6380);
  for (const char* bad : {"", ":6379", "host:", "host:0", "host:65536", "host:12x", "[::1"}) {
    auto r = ParseRedisAddress(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << bad;
  }
}

TEST(RedisQueueOptions, Checked) {
  EXPECT_TRUE(CheckRedisQueueOptions({}).ok());
  RedisQueueOptions o;
  o.max_attempts = 0;
  EXPECT_NE(CheckRedisQueueOptions(o).message().find("max attempts"), std::string::npos);
  o = {};
  o.lease = 10ms;
  EXPECT_FALSE(CheckRedisQueueOptions(o).ok());
  o = {};
  o.prefix = "";
  EXPECT_FALSE(CheckRedisQueueOptions(o).ok());
}

TEST(RedisQueueScripts, EveryStepHasOne) {
  for (const char* name : {"submit", "lease", "complete", "cancel", "renew"})
    EXPECT_FALSE(RedisQueueScript(name).empty()) << name;
  EXPECT_TRUE(RedisQueueScript("nope").empty());
  // The contract's order: the result is stored before the entry is acknowledged.
  const std::string& c = RedisQueueScript("complete");
  EXPECT_LT(c.find("'NX'"), c.find("XACK"));
}

class JobFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = *MakeTempDir(fs::temp_directory_path(), "hone-jobfiles-test");
    fs::create_directories(root_ / "problems/level1");
    fs::create_directories(root_ / "problems/native_task");
    ASSERT_TRUE(WriteFileAtomic(root_ / "problems/level1/19_ReLU.py", "# problem").ok());
    ASSERT_TRUE(WriteFileAtomic(root_ / "problems/native_task/task.toml", "name='x'").ok());
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(JobFilesTest, ResolvesNamedProblems) {
  fs::path p = root_ / "problems";
  EXPECT_EQ(*ResolveProblem(p, "level1/19_ReLU", BuiltInFormats()), p / "level1/19_ReLU.py");
  EXPECT_EQ(*ResolveProblem(p, "level1/19_ReLU.py", BuiltInFormats()), p / "level1/19_ReLU.py");
  EXPECT_EQ(*ResolveProblem(p, "native_task", BuiltInFormats()), p / "native_task");
  EXPECT_EQ(ResolveProblem(p, "level1/missing", BuiltInFormats()).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ResolveProblem(p, "../etc/passwd", BuiltInFormats()).status().code(),
            StatusCode::kInvalidInput);
  EXPECT_EQ(ResolveProblem(p, "/etc/passwd", BuiltInFormats()).status().code(),
            StatusCode::kInvalidInput);
  EXPECT_EQ(ResolveProblem("", "x", BuiltInFormats()).status().code(), StatusCode::kNotFound);
}

TEST_F(JobFilesTest, WritesAPrivateFolderAndRemovesIt) {
  EvalJob job;
  job.id = "j";
  job.problem_code = "class Model: pass";
  job.candidate_code = "class ModelNew: pass";
  fs::path folder;
  {
    auto files = JobFiles::Write(job, "", root_ / "scratch", BuiltInFormats(), BuiltInLanguages());
    ASSERT_TRUE(files.ok()) << files.status().message();
    folder = files->folder();
    EXPECT_EQ(*ReadFile(files->problem()), job.problem_code);
    EXPECT_EQ(files->candidate().filename(), "candidate.py");
    EXPECT_EQ(*ReadFile(files->candidate()), job.candidate_code);
    EXPECT_EQ(fs::status(folder).permissions() & fs::perms::all, fs::perms::owner_all);
  }
  EXPECT_FALSE(fs::exists(folder));
  job.problem_code.clear();
  job.problem_name = "nowhere";
  EXPECT_EQ(JobFiles::Write(job, root_ / "problems", root_ / "scratch", BuiltInFormats(),
                            BuiltInLanguages())
                .status()
                .code(),
            StatusCode::kNotFound);
  EXPECT_TRUE(fs::is_empty(root_ / "scratch")) << "nothing left behind";
}

EvalJob Kind(const std::string& kind, const std::string& backend = "") {
  EvalJob j;
  j.candidate_kind = kind;
  if (!backend.empty()) j.config["backend"] = backend;
  return j;
}

TEST(WorkerEvaluator, JobBackend) {
  EXPECT_EQ(*JobBackend(Kind("cpp"), "cpu", BuiltInLanguages(), BuiltInBackends()), "cpu");
  EXPECT_EQ(*JobBackend(Kind("cpp"), "cuda", BuiltInLanguages(), BuiltInBackends()), "cpu");
  EXPECT_EQ(*JobBackend(Kind("cuda"), "cuda", BuiltInLanguages(), BuiltInBackends()), "cuda");
  EXPECT_EQ(*JobBackend(Kind("modelnew"), "cuda", BuiltInLanguages(), BuiltInBackends()), "cuda");
  EXPECT_EQ(*JobBackend(Kind("modelnew", "cpu"), "cuda", BuiltInLanguages(), BuiltInBackends()),
            "cpu");
  EXPECT_EQ(JobBackend(Kind("cuda"), "cpu", BuiltInLanguages(), BuiltInBackends()).status().code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(JobBackend(Kind("modelnew", "cuda"), "cpu", BuiltInLanguages(), BuiltInBackends())
                .status()
                .code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(JobBackend(Kind("cpp", "cuda"), "cuda", BuiltInLanguages(), BuiltInBackends())
                .status()
                .code(),
            StatusCode::kInvalidInput);
  EXPECT_EQ(
      JobBackend(Kind("cpp", "tpu"), "cpu", BuiltInLanguages(), BuiltInBackends()).status().code(),
      StatusCode::kInvalidInput);
}

TEST(WorkerEvaluator, ApplyJobConfig) {
  EvalOptions base;
  base.total_timeout = 60s;
  auto o = ApplyJobConfig(base, {{"timeout_s", 5}, {"allow", "library"}, {"baselines", "eager"}},
                          BuiltInLanguages());
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->total_timeout, 5s);
  EXPECT_TRUE(o->lint_allow.count("library"));
  EXPECT_TRUE(o->eager_baseline);
  EXPECT_FALSE(o->compile_baseline);
  EXPECT_EQ(ApplyJobConfig(base, {{"timeout_s", 600}}, BuiltInLanguages())->total_timeout, 60s)
      << "never longer than the worker allows";
  EXPECT_FALSE(ApplyJobConfig(base, {{"allow", "no_such_rule"}}, BuiltInLanguages()).ok());
  EXPECT_FALSE(ApplyJobConfig(base, {{"baselines", "fast"}}, BuiltInLanguages()).ok());
  EXPECT_FALSE(ApplyJobConfig(base, {{"timeout_s", 0}}, BuiltInLanguages()).ok());
  Task t;
  ApplyJobSeeds(t, {{"seeds", 1}});
  EXPECT_EQ(t.seeds, 3) << "never fewer than the task's";
  ApplyJobSeeds(t, {{"seeds", 100}});
  EXPECT_EQ(t.seeds, 16);
}

// ---- the worker loop over fakes

class FakeQueue : public JobQueue {
 public:
  std::deque<JobLease> jobs;
  std::vector<EvalResult> completed;
  std::mutex mu;
  int renewals = 0;

  Result<SubmitOutcome> Submit(const EvalJob&) override { return SubmitOutcome::kCreated; }
  Result<std::optional<EvalResult>> GetResult(const std::string&) override {
    return std::optional<EvalResult>();
  }
  Result<std::optional<EvalJob>> GetJob(const std::string&) override {
    return std::optional<EvalJob>();
  }
  Result<JobState> State(const std::string&) override { return JobState::kUnknown; }
  Result<bool> Cancel(const std::string&) override { return false; }
  Result<std::vector<std::string>> WaitForAny(const std::vector<std::string>&,
                                              std::chrono::milliseconds) override {
    return std::vector<std::string>();
  }
  Result<QueueStats> Stats() override { return QueueStats(); }
  Result<std::optional<JobLease>> Take(const std::string&, std::chrono::milliseconds) override {
    if (jobs.empty()) return std::optional<JobLease>();
    JobLease l = jobs.front();
    jobs.pop_front();
    return std::optional<JobLease>(l);
  }
  Status Renew(const JobLease&, const std::string&) override {
    std::lock_guard lock(mu);
    ++renewals;
    return Status::Ok();
  }
  Result<bool> Complete(const JobLease&, const EvalResult& r) override {
    completed.push_back(r);
    return true;
  }
  std::vector<std::string> released;
  Status Release(const JobLease& l, const std::string&) override {
    released.push_back(l.job.id);
    return Status::Ok();
  }
};

class ScriptedEvaluator : public JobEvaluator {
 public:
  std::function<Result<Verdict>(const EvalJob&)> next;
  std::chrono::milliseconds takes{0};
  Result<Verdict> Evaluate(const EvalJob& job, const JobFiles& files) override {
    EXPECT_TRUE(fs::exists(files.candidate()));
    std::this_thread::sleep_for(takes);
    return next(job);
  }
};

JobLease Lease(const std::string& id, const std::string& problem = "native_task") {
  JobLease l;
  l.job.id = id;
  l.job.problem_name = problem;
  l.job.candidate_kind = "cpp";
  l.job.candidate_code = "int x;";
  l.entry = "1-0";
  l.attempt = 1;
  return l;
}

// The worker needs a problem folder and a scratch folder, as JobFiles does.
using WorkerLoopTest = JobFilesTest;

TEST_F(WorkerLoopTest, VerdictsBecomeResultsAndEverythingElseInfraErrors) {
  FakeQueue queue, renewals;
  ScriptedEvaluator eval;
  eval.takes = 120ms;
  eval.next = [](const EvalJob& job) -> Result<Verdict> {
    if (job.id == "broken") return Status::Invalid("the reference failed");
    Verdict v;
    v.status = job.id == "wrong" ? VerdictStatus::kIncorrect : VerdictStatus::kPassed;
    return v;
  };
  for (const char* id : {"ok", "wrong", "broken"}) queue.jobs.push_back(Lease(id));
  queue.jobs.push_back(Lease("lost", "no/such/problem"));
  WorkerOptions o = WithRegistries();
  o.consumer = "w";
  o.device = "test/cpu";
  o.problems = root_ / "problems";
  o.scratch = root_ / "scratch";
  o.renew_every = 30ms;
  o.max_jobs = 4;
  o.max_attempts = 1;  // every take is the last: infra errors are stored
  Worker worker(queue, renewals, eval, o);
  std::atomic<bool> stop{false};
  WorkerTally t = worker.Run(stop);
  EXPECT_EQ(t.jobs, 4);
  EXPECT_EQ(t.infra, 2);
  ASSERT_EQ(queue.completed.size(), 4u);
  EXPECT_EQ(queue.completed[0].status, "passed");
  EXPECT_EQ(queue.completed[0].device, "test/cpu");
  EXPECT_EQ(queue.completed[1].error_class, "wrong_output");
  EXPECT_TRUE(queue.completed[2].infra_error());
  EXPECT_NE(queue.completed[2].error_msg.find("reference failed"), std::string::npos);
  EXPECT_TRUE(queue.completed[3].infra_error());
  EXPECT_NE(queue.completed[3].error_msg.find("no/such/problem"), std::string::npos);
  EXPECT_GE(renewals.renewals, 3) << "the lease is renewed while evaluating";
  EXPECT_TRUE(fs::is_empty(root_ / "scratch"));
}

// One job taken twice: its first attempt and its last (of 3).
std::deque<JobLease> FirstAndLastAttempts(const std::string& id) {
  JobLease first = Lease(id), last = Lease(id);
  last.attempt = 3;
  return {first, last};
}

// A worker for FirstAndLastAttempts: two takes, 3 attempts at most.
WorkerOptions TwoTakes(const fs::path& root) {
  WorkerOptions o = WithRegistries();
  o.consumer = "w";
  o.problems = root / "problems";
  o.scratch = root / "scratch";
  o.max_jobs = 2;
  o.max_attempts = 3;
  return o;
}

// The newcomer trial: a worker that could not run a job stored a final
// infra_error on the first attempt, and the trainer could never retry it.
TEST_F(WorkerLoopTest, AnInfraErrorBeforeTheLastAttemptIsHandedBackNotStored) {
  FakeQueue queue, renewals;
  ScriptedEvaluator eval;
  eval.next = [](const EvalJob&) -> Result<Verdict> { return Status::Internal("GPU lost"); };
  queue.jobs = FirstAndLastAttempts("job");
  Worker worker(queue, renewals, eval, TwoTakes(root_));
  std::atomic<bool> stop{false};
  std::vector<bool> handed_back;
  WorkerTally t =
      worker.Run(stop, [&](const JobOutcome& out) { handed_back.push_back(out.handed_back); });
  EXPECT_EQ(t.handed_back, 1);
  EXPECT_EQ(t.infra, 1);
  EXPECT_EQ(handed_back, (std::vector<bool>{true, false}));
  EXPECT_EQ(queue.released, std::vector<std::string>{"job"});
  ASSERT_EQ(queue.completed.size(), 1u) << "only the last attempt's infra_error is final";
  EXPECT_TRUE(queue.completed[0].infra_error());
  EXPECT_EQ(queue.completed[0].attempts, 3);
}

// A busy verdict (a shared GPU left a timing check undecided) says nothing
// of the candidate: handed back like an infra error, and on the last attempt
// stored as one, with no score, so a trainer drops it rather than punish.
TEST_F(WorkerLoopTest, ABusyVerdictIsHandedBackAndNeverScored) {
  FakeQueue queue, renewals;
  ScriptedEvaluator eval;
  eval.next = [](const EvalJob&) -> Result<Verdict> {
    Verdict v;
    v.status = VerdictStatus::kBusy;
    v.reason = "not decided: the GPU was shared: 1 other process";
    v.timing.speedup = 3;
    return v;
  };
  queue.jobs = FirstAndLastAttempts("job");
  Worker worker(queue, renewals, eval, TwoTakes(root_));
  std::atomic<bool> stop{false};
  WorkerTally t = worker.Run(stop);
  EXPECT_EQ(t.handed_back, 1);
  EXPECT_EQ(queue.released, std::vector<std::string>{"job"});
  ASSERT_EQ(queue.completed.size(), 1u);
  const EvalResult& r = queue.completed[0];
  EXPECT_EQ(r.status, "busy");
  EXPECT_TRUE(r.infra_error());
  EXPECT_FALSE(r.correct);
  EXPECT_EQ(r.speedup, 0);
  EXPECT_EQ(r.score, 0);
  EXPECT_NE(r.error_msg.find("other process"), std::string::npos);
}

TEST_F(WorkerLoopTest, StoppedMidJobLeavesASignalledVerdictForARetry) {
  FakeQueue queue, renewals;
  ScriptedEvaluator eval;
  std::atomic<bool> stop{false};
  eval.next = [&](const EvalJob& job) -> Result<Verdict> {
    stop = true;  // SIGTERM arrives during the evaluation
    Verdict v;
    v.status = job.id == "crashed" ? VerdictStatus::kRuntimeError : VerdictStatus::kPassed;
    return v;
  };
  queue.jobs.push_back(Lease("crashed"));
  WorkerOptions o = WithRegistries();
  o.consumer = "w";
  o.problems = root_ / "problems";
  o.scratch = root_ / "scratch";
  Worker worker(queue, renewals, eval, o);
  WorkerTally t = worker.Run(stop);
  EXPECT_EQ(t.jobs, 1);
  EXPECT_EQ(t.dropped, 1);
  EXPECT_TRUE(queue.completed.empty()) << "not stored: the signal may have killed the sandbox";
  stop = false;
  queue.jobs.push_back(Lease("fine"));
  o.max_jobs = 1;
  Worker again(queue, renewals, eval, o);
  again.Run(stop);
  ASSERT_EQ(queue.completed.size(), 1u) << "a pass reached while stopping is stored";
  EXPECT_EQ(queue.completed[0].status, "passed");
}

}  // namespace
}  // namespace hone
