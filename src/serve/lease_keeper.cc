#include "serve/lease_keeper.h"

namespace hone {

LeaseKeeper::LeaseKeeper(JobQueue& queue, JobLease lease, std::string consumer,
                         std::chrono::milliseconds every)
    : queue_(queue),
      lease_(std::move(lease)),
      consumer_(std::move(consumer)),
      every_(every),
      thread_([this] { Loop(); }) {}

LeaseKeeper::~LeaseKeeper() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void LeaseKeeper::Loop() {
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, every_, [this] { return stop_; })) {
    lock.unlock();
    Status st = queue_.Renew(lease_, consumer_);
    lock.lock();
    if (st.ok()) {
      ++renewals_;
    } else {
      ++failures_;
      last_error_ = st.message();
    }
  }
}

int LeaseKeeper::renewals() const {
  std::lock_guard lock(mu_);
  return renewals_;
}

int LeaseKeeper::failures() const {
  std::lock_guard lock(mu_);
  return failures_;
}

std::string LeaseKeeper::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace hone
