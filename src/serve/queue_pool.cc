#include "serve/queue_pool.h"

namespace hone {

Result<QueuePool::Handle> QueuePool::Borrow() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<JobQueue> q = std::move(idle_.back());
      idle_.pop_back();
      return Handle(this, std::move(q));
    }
  }
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<JobQueue> q, factory_());
  return Handle(this, std::move(q));
}

void QueuePool::GiveBack(std::unique_ptr<JobQueue> q) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(q));
}

}  // namespace hone
