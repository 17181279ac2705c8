#include "support/memory_job_queue.h"

namespace hone::testing {

namespace {
using Clock = std::chrono::steady_clock;
}

Result<SubmitOutcome> MemoryJobQueue::Submit(const EvalJob& job) {
  std::lock_guard<std::mutex> lock(s_->mu);
  auto it = s_->content.find(job.id);
  if (it != s_->content.end())
    return it->second == job.ContentKey() ? SubmitOutcome::kAttached : SubmitOutcome::kConflict;
  s_->content[job.id] = job.ContentKey();
  s_->jobs[job.id] = job;
  s_->queued.push_back(job.id);
  s_->changed.notify_all();
  return SubmitOutcome::kCreated;
}

Result<std::optional<EvalResult>> MemoryJobQueue::GetResult(const std::string& id) {
  std::lock_guard<std::mutex> lock(s_->mu);
  auto it = s_->results.find(id);
  if (it == s_->results.end()) return std::optional<EvalResult>();
  return std::optional<EvalResult>(it->second);
}

Result<std::optional<EvalJob>> MemoryJobQueue::GetJob(const std::string& id) {
  std::lock_guard<std::mutex> lock(s_->mu);
  auto it = s_->jobs.find(id);
  if (it == s_->jobs.end()) return std::optional<EvalJob>();
  return std::optional<EvalJob>(it->second);
}

Result<JobState> MemoryJobQueue::State(const std::string& id) {
  std::lock_guard<std::mutex> lock(s_->mu);
  if (s_->results.count(id)) return JobState::kDone;
  if (s_->running.count(id)) return JobState::kRunning;
  if (s_->jobs.count(id)) return JobState::kQueued;
  return JobState::kUnknown;
}

Result<bool> MemoryJobQueue::Cancel(const std::string& id) {
  std::lock_guard<std::mutex> lock(s_->mu);
  if (s_->results.count(id)) return false;
  EvalResult r;
  r.id = id;
  r.status = "cancelled";
  s_->results[id] = r;
  s_->changed.notify_all();
  return true;
}

Result<std::vector<std::string>> MemoryJobQueue::WaitForAny(const std::vector<std::string>& ids,
                                                            std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(s_->mu);
  std::vector<std::string> done;
  auto any = [&] {
    done.clear();
    for (const auto& id : ids)
      if (s_->results.count(id)) done.push_back(id);
    return !done.empty();
  };
  s_->changed.wait_for(lock, timeout, any);
  return done;
}

Result<QueueStats> MemoryJobQueue::Stats() {
  std::lock_guard<std::mutex> lock(s_->mu);
  return QueueStats{static_cast<long long>(s_->queued.size()),
                    static_cast<long long>(s_->running.size()),
                    static_cast<long long>(s_->results.size()), s_->dead};
}

// A stale lease first, then the oldest queued job; dead-letters past the
// attempts. Called with the lock held.
std::optional<std::string> MemoryJobQueue::NextLocked() {
  auto now = Clock::now();
  for (auto it = s_->running.begin(); it != s_->running.end();) {
    if (now - it->second.renewed < s_->lease) {
      ++it;
      continue;
    }
    std::string id = it->first;
    it = s_->running.erase(it);
    s_->queued.push_front(id);
  }
  while (!s_->queued.empty()) {
    std::string id = s_->queued.front();
    s_->queued.pop_front();
    if (s_->results.count(id)) continue;  // cancelled or done
    if (s_->attempts[id] >= s_->max_attempts) {
      s_->results[id] = InfraErrorResult(
          id, "dead-lettered after " + std::to_string(s_->attempts[id]) + " attempts",
          s_->attempts[id], "");
      ++s_->dead;
      s_->changed.notify_all();
      continue;
    }
    return id;
  }
  return std::nullopt;
}

Result<std::optional<JobLease>> MemoryJobQueue::Take(const std::string& consumer,
                                                     std::chrono::milliseconds block) {
  std::unique_lock<std::mutex> lock(s_->mu);
  auto deadline = Clock::now() + block;
  while (true) {
    if (auto id = NextLocked()) {
      int attempt = ++s_->attempts[*id];
      s_->running[*id] = {consumer, Clock::now()};
      return std::optional<JobLease>(JobLease{s_->jobs[*id], *id, attempt});
    }
    if (s_->changed.wait_until(lock, deadline) == std::cv_status::timeout)
      return std::optional<JobLease>();
  }
}

Status MemoryJobQueue::Renew(const JobLease& lease, const std::string& consumer) {
  std::lock_guard<std::mutex> lock(s_->mu);
  auto it = s_->running.find(lease.job.id);
  if (it != s_->running.end() && it->second.consumer == consumer) it->second.renewed = Clock::now();
  return Status::Ok();
}

Status MemoryJobQueue::Release(const JobLease& lease, const std::string& consumer) {
  std::lock_guard<std::mutex> lock(s_->mu);
  auto it = s_->running.find(lease.job.id);
  if (it == s_->running.end() || it->second.consumer != consumer)
    return Status::NotFound("lease of " + lease.job.id + " is no longer " + consumer + "'s");
  it->second.renewed = Clock::now() - s_->lease;
  s_->changed.notify_all();
  return Status::Ok();
}

Result<bool> MemoryJobQueue::Complete(const JobLease& lease, const EvalResult& result) {
  std::lock_guard<std::mutex> lock(s_->mu);
  s_->running.erase(lease.job.id);
  bool first = s_->results.emplace(lease.job.id, result).second;
  s_->changed.notify_all();
  return first;
}

}  // namespace hone::testing
