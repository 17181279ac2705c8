// Queue connections for the HTTP server's handler threads: a JobQueue is
// used by one thread at a time (job_queue.h), so each request borrows one
// from the pool and gives it back when its handle goes away. Connections are
// made by the factory on demand and kept for reuse.
//
// Thread-safe. A factory failure (Redis down) is the Status of Borrow.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/status.h"
#include "serve/job_queue.h"

namespace hone {

using JobQueueFactory = std::function<Result<std::unique_ptr<JobQueue>>()>;

class QueuePool {
 public:
  explicit QueuePool(JobQueueFactory factory) : factory_(std::move(factory)) {}

  class Handle {
   public:
    Handle(QueuePool* pool, std::unique_ptr<JobQueue> q) : pool_(pool), queue_(std::move(q)) {}
    Handle(Handle&&) = default;
    ~Handle() {
      if (queue_) pool_->GiveBack(std::move(queue_));
    }
    JobQueue* operator->() { return queue_.get(); }
    JobQueue& operator*() { return *queue_; }
    // A connection that failed is not given back (the next borrow makes a new one).
    void Discard() { queue_.reset(); }

   private:
    QueuePool* pool_;
    std::unique_ptr<JobQueue> queue_;
  };

  Result<Handle> Borrow();

 private:
  void GiveBack(std::unique_ptr<JobQueue> q);

  JobQueueFactory factory_;
  std::mutex mu_;
  std::vector<std::unique_ptr<JobQueue>> idle_;
};

}  // namespace hone
