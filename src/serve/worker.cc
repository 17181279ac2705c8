#include "serve/worker.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "serve/lease_keeper.h"

namespace hone {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How long a failed Take waits before the next, doubling up to the cap.
constexpr milliseconds kFirstBackoff{250};
constexpr milliseconds kMaxBackoff{10000};
// Complete is tried this many times before the result is given up (the job
// then goes stale and is evaluated again elsewhere once the queue is back).
constexpr int kCompleteTries = 6;
// After handing a job back, so that another worker's Take comes first.
constexpr milliseconds kHandBackPause{1000};

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A verdict a signal to the worker's process group could have caused.
bool SignalCouldCause(const Verdict& v) {
  return v.status == VerdictStatus::kRuntimeError || v.status == VerdictStatus::kTimeout;
}

}  // namespace

void SleepUnlessStopped(milliseconds d, const std::atomic<bool>& stop) {
  auto until = Clock::now() + d;
  while (!stop && Clock::now() < until) std::this_thread::sleep_for(std::min(milliseconds(50), d));
}

Worker::Worker(JobQueue& queue, JobQueue& renewals, JobEvaluator& evaluator, WorkerOptions options)
    : queue_(queue), renewals_(renewals), evaluator_(evaluator), options_(std::move(options)) {
  HONE_CHECK(options_.formats && options_.languages, "a worker without its registries");
}

EvalResult Worker::Evaluate(const JobLease& lease, const std::atomic<bool>& stop, JobOutcome& out) {
  const EvalJob& job = lease.job;
  auto start = Clock::now();
  Result<Verdict> verdict = Status::Internal("not evaluated");
  {
    LeaseKeeper keeper(renewals_, lease, options_.consumer, options_.renew_every);
    auto files = JobFiles::Write(job, options_.problems, options_.scratch, *options_.formats,
                                 *options_.languages);
    verdict = files.ok() ? evaluator_.Evaluate(job, *files) : Result<Verdict>(files.status());
    out.renewals = keeper.renewals();
    out.renew_failures = keeper.failures();
  }
  if (!verdict.ok())
    return InfraErrorResult(job.id, verdict.status().message(), lease.attempt, options_.device);
  if (stop && SignalCouldCause(*verdict)) out.dropped = true;
  return ResultFromVerdict(job.id, *verdict, lease.attempt, options_.device,
                           MillisecondsSince(start));
}

Result<bool> Worker::CompleteWithRetry(const JobLease& lease, const EvalResult& result) {
  milliseconds backoff = kFirstBackoff;
  Result<bool> stored = Status::Internal("not completed");
  for (int i = 0; i < kCompleteTries; ++i) {
    stored = queue_.Complete(lease, result);
    if (stored.ok()) return stored;
    // Not interruptible: the result of a finished evaluation is worth the wait.
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
  return stored;
}

Result<std::optional<JobOutcome>> Worker::RunOne(const std::atomic<bool>& stop) {
  HONE_ASSIGN_OR_RETURN(auto lease, queue_.Take(options_.consumer, options_.block));
  if (!lease) return std::optional<JobOutcome>();
  if (!options_.crash_on.empty() &&
      lease->job.candidate_code.find(options_.crash_on) != std::string::npos)
    kill(getpid(), SIGKILL);  // test only: a worker lost mid-job
  JobOutcome out;
  out.result = Evaluate(*lease, stop, out);
  out.lease = std::move(*lease);
  if (out.dropped) return std::optional<JobOutcome>(std::move(out));
  if (out.result.infra_error() && out.lease.attempt < options_.max_attempts) {
    out.handed_back = true;
    // A failed release leaves the lease to go stale: later, not lost.
    (void)queue_.Release(out.lease, options_.consumer);
    return std::optional<JobOutcome>(std::move(out));
  }
  HONE_ASSIGN_OR_RETURN(out.stored, CompleteWithRetry(out.lease, out.result));
  return std::optional<JobOutcome>(std::move(out));
}

WorkerTally Worker::Run(const std::atomic<bool>& stop, const JobFn& on_job,
                        const ErrorFn& on_error) {
  WorkerTally tally;
  milliseconds backoff = kFirstBackoff;
  while (!stop && (options_.max_jobs <= 0 || tally.jobs < options_.max_jobs)) {
    auto outcome = RunOne(stop);
    if (!outcome.ok()) {
      if (on_error) on_error(outcome.status().message());
      SleepUnlessStopped(backoff, stop);
      backoff = std::min(backoff * 2, kMaxBackoff);
      continue;
    }
    backoff = kFirstBackoff;
    if (!*outcome) continue;
    const JobOutcome& o = **outcome;
    ++tally.jobs;
    if (o.handed_back) {
      ++tally.handed_back;
      if (on_job) on_job(o);
      // Gives another worker the first chance at the job handed back.
      SleepUnlessStopped(kHandBackPause, stop);
      continue;
    }
    if (o.dropped)
      ++tally.dropped;
    else if (o.stored)
      ++tally.stored;
    else
      ++tally.already_done;
    if (o.result.infra_error()) ++tally.infra;
    if (on_job) on_job(o);
  }
  return tally;
}

}  // namespace hone
