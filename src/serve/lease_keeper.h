// Keeps one job's lease fresh while a worker evaluates it: a thread that
// renews the lease every `every` until the keeper is destroyed, so that a
// long evaluation is not mistaken for a dead worker and reclaimed.
//
// Ownership: the keeper borrows `queue`, which must be used by no other
// thread while the keeper lives (a worker gives it a queue of its own: a
// JobQueue is one thread's). The destructor stops and joins the thread
// promptly (it waits on a condition variable, not a sleep).
//
// Failure: a failed renewal is counted and the last message kept, never
// fatal: the evaluation goes on, and if the lease was lost meanwhile,
// Complete's SET NX keeps whichever result came first.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "serve/job_queue.h"

namespace hone {

class LeaseKeeper {
 public:
  LeaseKeeper(JobQueue& queue, JobLease lease, std::string consumer,
              std::chrono::milliseconds every);
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  int renewals() const;
  int failures() const;
  std::string last_error() const;

 private:
  void Loop();

  JobQueue& queue_;
  const JobLease lease_;
  const std::string consumer_;
  const std::chrono::milliseconds every_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  int renewals_ = 0, failures_ = 0;
  std::string last_error_;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace hone
