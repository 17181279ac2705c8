// An in-process JobQueue with the semantics job_queue.h states (idempotent
// submit, first result wins, stale leases taken again, dead-lettering after
// max_attempts), for tests of what sits on either side of the queue (the
// HTTP service, shims) without Redis. Instances made from one
// MemoryQueueState share it, as connections to one Redis do. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include "serve/job_queue.h"

namespace hone::testing {

struct MemoryQueueState {
  std::mutex mu;
  std::condition_variable changed;
  std::map<std::string, EvalJob> jobs;
  std::map<std::string, std::string> content;  // id -> content key
  std::deque<std::string> queued;
  struct Running {
    std::string consumer;
    std::chrono::steady_clock::time_point renewed;
  };
  std::map<std::string, Running> running;
  std::map<std::string, int> attempts;
  std::map<std::string, EvalResult> results;
  long long dead = 0;
  std::chrono::milliseconds lease{std::chrono::seconds(30)};
  int max_attempts = 3;
};

class MemoryJobQueue : public JobQueue {
 public:
  explicit MemoryJobQueue(std::shared_ptr<MemoryQueueState> s) : s_(std::move(s)) {}

  Result<SubmitOutcome> Submit(const EvalJob& job) override;
  Result<std::optional<EvalResult>> GetResult(const std::string& id) override;
  Result<std::optional<EvalJob>> GetJob(const std::string& id) override;
  Result<JobState> State(const std::string& id) override;
  Result<bool> Cancel(const std::string& id) override;
  Result<std::vector<std::string>> WaitForAny(const std::vector<std::string>& ids,
                                              std::chrono::milliseconds timeout) override;
  Result<QueueStats> Stats() override;
  Result<std::optional<JobLease>> Take(const std::string& consumer,
                                       std::chrono::milliseconds block) override;
  Status Renew(const JobLease& lease, const std::string& consumer) override;
  Result<bool> Complete(const JobLease& lease, const EvalResult& result) override;
  Status Release(const JobLease& lease, const std::string& consumer) override;

 private:
  std::optional<std::string> NextLocked();
  std::shared_ptr<MemoryQueueState> s_;
};

}  // namespace hone::testing
