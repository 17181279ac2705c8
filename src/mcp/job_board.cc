#include "mcp/job_board.h"

#include <fmt/format.h>

#include <system_error>
#include <thread>

namespace hone::mcp {
namespace {

// The job's result; a JSON value of an unexpected type (nlohmann throws)
// is the job's error, never the end of the server.
ToolResult RunWork(const std::function<ToolResult(Job&)>& work, Job& job) {
  try {
    return work(job);
  } catch (const nlohmann::json::exception& e) {
    return ToolResult::Error(std::string("unexpected JSON: ") + e.what());
  }
}

}  // namespace

void Job::SetProgress(std::function<void(const std::string&)> sink) {
  std::lock_guard<std::mutex> lock(mu_);
  progress_ = std::move(sink);
}

void Job::Progress(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (progress_) progress_(line);
}

void Job::Finish(ToolResult result) {
  std::lock_guard<std::mutex> lock(mu_);
  result_ = std::move(result);
  finished_ = std::chrono::steady_clock::now();
  done_.notify_all();
}

std::optional<ToolResult> Job::Wait(std::chrono::milliseconds wait, const CancelFlag& abandon) {
  auto deadline = std::chrono::steady_clock::now() + wait;
  std::unique_lock<std::mutex> lock(mu_);
  while (!result_ && !abandon.cancelled() && std::chrono::steady_clock::now() < deadline)
    // Cancellation is a flag, not a notification: look again now and then.
    done_.wait_for(lock, std::chrono::milliseconds(100));
  return result_;
}

std::optional<std::chrono::steady_clock::time_point> Job::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!result_) return std::nullopt;
  return finished_;
}

JobBoard::~JobBoard() {
  CancelAll();
  WaitAll();
}

Result<std::shared_ptr<Job>> JobBoard::Start(std::function<ToolResult(Job&)> work) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ForgetStale();
    if (running_ >= max_running_)
      return Status::Unavailable(fmt::format(
          "{} jobs are running already (the most at once): wait for one with the result tool, "
          "or stop one (result with cancel: true)",
          running_));
    job = std::make_shared<Job>("j" + std::to_string(++next_));
    jobs_[job->id()] = job;
    ++running_;
  }
  try {
    std::thread([this, job, work = std::move(work)] {
      job->Finish(RunWork(work, *job));
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
      idle_.notify_all();
    }).detach();
  } catch (const std::system_error& e) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.erase(job->id());
    --running_;
    idle_.notify_all();
    return Status::Unavailable(std::string("cannot start the job's thread: ") + e.what());
  }
  return job;
}

void JobBoard::ForgetStale() {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    auto done = it->second->finished();
    it = done && now - *done >= keep_finished_ ? jobs_.erase(it) : std::next(it);
  }
}

std::shared_ptr<Job> JobBoard::Find(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  ForgetStale();
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : it->second;
}

void JobBoard::Forget(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.erase(id);
}

void JobBoard::CancelAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, job] : jobs_) job->cancel().Cancel();
}

void JobBoard::WaitAll() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return running_ == 0; });
}

ToolResult StillRunning(const Job& job) {
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - job.started()).count();
  ToolResult r;
  r.text = fmt::format(
      "running: still at work after {:.0f} s; call result {{\"job\": \"{}\"}} for its verdict "
      "(the work goes on meanwhile)\n",
      seconds, job.id());
  r.structured = {{"status", "running"},
                  {"reason", fmt::format("still at work after {:.0f} s", seconds)},
                  {"job", job.id()}};
  return r;
}

}  // namespace hone::mcp
