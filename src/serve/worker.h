// The worker loop of `hone worker`: take a job from the queue, write its
// files to a private folder, evaluate it while a second thread renews the
// lease, turn the verdict into a result and complete the job. One
// evaluation at a time: a worker owns one device, and timing needs it alone.
//
// What is a verdict and what is not: a verdict on the candidate (passed,
// incorrect, compile_error, runtime_error, timeout, rejected) is the
// result. Anything else (the problem does not resolve or load, the
// evaluator fails with a Status, the worker cannot write its files) is an
// infra_error. Such a failure may be this worker's alone (a missing file,
// a broken GPU), so it is never final before the job's last attempt: the
// job is handed back (JobQueue::Release) for another worker, and only the
// last attempt stores the infra_error, which a trainer drops instead of
// scoring. A worker
// that dies mid-job stores nothing: its lease goes stale and the job goes
// to another worker (job_queue.h), up to max_attempts.
//
// Stopping: `stop` (set by SIGTERM) is read between jobs; the job in hand
// is finished and completed first. A verdict of runtime_error or timeout
// reached after `stop` was set is not stored (the signal may have killed
// the sandbox, which says nothing about the candidate): the job is left to
// go stale and be retried elsewhere.
//
// Test hook: WorkerOptions::crash_on (HONE_WORKER_TEST_CRASH_ON in `hone
// worker`, for tests only) makes the process SIGKILL itself when it takes a
// job whose candidate contains that text, standing in for a candidate that
// kills every worker that touches it.
//
// Ownership: borrows the two queues (one per thread: `queue` for this
// thread, `renewals` for the lease keeper's) and the evaluator.
// Thread-compatible; Run blocks the calling thread. Queue outages are
// waited out with a bounded backoff and reported through `on_error`.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

#include "serve/job_files.h"
#include "serve/job_queue.h"
#include "verify/verdict.h"

namespace hone {

// Evaluates one job's files. A Status is for anything that is not a
// verdict on the candidate.
class JobEvaluator {
 public:
  virtual ~JobEvaluator() = default;
  virtual Result<Verdict> Evaluate(const EvalJob& job, const JobFiles& files) = 0;
};

struct WorkerOptions {
  std::string consumer;            // the worker's name in the consumer group
  std::string device;              // what results report ("node7/cuda:0")
  std::filesystem::path problems;  // where named problems resolve
  // How a job's files are written (JobFiles::Write): the task formats a
  // named problem is read in and the languages a candidate's kind names.
  // Borrowed; required (the entry point's registries, or a test's).
  const FormatRegistry* formats = nullptr;
  const LanguageRegistry* languages = nullptr;
  std::filesystem::path scratch;                 // private job folders are made here
  std::chrono::milliseconds block{2000};         // one Take's wait for a job
  std::chrono::milliseconds renew_every{10000};  // a third of the lease
  long long max_jobs = 0;                        // stop after this many; 0: no limit
  int max_attempts = 3;                          // the queue's (job_queue.h)
  std::string crash_on;                          // test only (above)
};

// What became of one job.
struct JobOutcome {
  JobLease lease;
  EvalResult result;
  bool stored = false;       // this result is the job's (false: one was there first)
  bool dropped = false;      // not completed (stopped mid-job: left for a retry)
  bool handed_back = false;  // an infra_error before the last attempt: released
  int renewals = 0, renew_failures = 0;
};

struct WorkerTally {
  long long jobs = 0, stored = 0, already_done = 0, dropped = 0, infra = 0, handed_back = 0;
};

class Worker {
 public:
  Worker(JobQueue& queue, JobQueue& renewals, JobEvaluator& evaluator, WorkerOptions options);

  using JobFn = std::function<void(const JobOutcome&)>;
  using ErrorFn = std::function<void(const std::string&)>;
  // Takes jobs until `stop` or max_jobs.
  WorkerTally Run(const std::atomic<bool>& stop, const JobFn& on_job = {},
                  const ErrorFn& on_error = {});
  // One Take and, when it gives a job, its evaluation and completion.
  // nullopt: no job came within the block time.
  Result<std::optional<JobOutcome>> RunOne(const std::atomic<bool>& stop);

 private:
  EvalResult Evaluate(const JobLease& lease, const std::atomic<bool>& stop, JobOutcome& out);
  Result<bool> CompleteWithRetry(const JobLease& lease, const EvalResult& result);

  JobQueue& queue_;
  JobQueue& renewals_;
  JobEvaluator& evaluator_;
  WorkerOptions options_;
};

// Sleeps up to `d`, waking early when `stop` is set.
void SleepUnlessStopped(std::chrono::milliseconds d, const std::atomic<bool>& stop);

}  // namespace hone
