// Long tool calls as jobs that outlive the request that started them.
//
// An agent's client gives each call a timeout (60 s by default in the
// TypeScript SDK) and cancels the call when it passes; a cold CUDA build and
// a full-size timing take longer. So an evaluating call waits for its job
// only `wait_seconds`: a job done by then is the call's result; one still
// running is answered {"status": "running", "job": ID}, keeps running, and
// the `result` tool waits for it again and returns its verdict. A timeout
// never kills work half-way, and a call cancelled while it waits (the
// client's abort) cancels its job, which stops its processes.
//
// Thread-safe. Each job runs on a thread of its own; the board's owner
// calls CancelAll and WaitAll before it goes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/status.h"
#include "mcp/mcp_tools.h"

namespace hone::mcp {

class Job {
 public:
  explicit Job(std::string id) : id_(std::move(id)) {}
  const std::string& id() const { return id_; }
  CancelFlag& cancel() { return cancel_; }

  // Where the job's progress goes: the call waiting on it, or nowhere (null)
  // once no call waits.
  void SetProgress(std::function<void(const std::string&)> sink);
  void Progress(const std::string& line);
  void Finish(ToolResult result);
  // The result once finished; nullopt when `wait` passed or `abandon` was
  // set first.
  std::optional<ToolResult> Wait(std::chrono::milliseconds wait, const CancelFlag& abandon);
  std::chrono::steady_clock::time_point started() const { return started_; }
  // When it finished; nullopt while it runs.
  std::optional<std::chrono::steady_clock::time_point> finished() const;

 private:
  const std::string id_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  CancelFlag cancel_;
  mutable std::mutex mu_;
  std::chrono::steady_clock::time_point finished_;
  std::condition_variable done_;
  std::optional<ToolResult> result_;
  std::function<void(const std::string&)> progress_;
};

// Bounded: at most `max_running` jobs run at once, and a finished job whose
// result nobody asked for is forgotten `keep_finished` after it finished.
class JobBoard {
 public:
  explicit JobBoard(int max_running = 64,
                    std::chrono::milliseconds keep_finished = std::chrono::minutes(30))
      : max_running_(max_running), keep_finished_(keep_finished) {}
  ~JobBoard();
  // Starts `work` on a thread of its own, as job "jN"; Status::Unavailable
  // when max_running jobs run already or no thread can be started.
  Result<std::shared_ptr<Job>> Start(std::function<ToolResult(Job&)> work);
  // Null when there is none (or it was forgotten).
  std::shared_ptr<Job> Find(const std::string& id);
  // A job whose result was returned is forgotten.
  void Forget(const std::string& id);
  void CancelAll();
  void WaitAll();

 private:
  // Forgets the jobs finished more than keep_finished_ ago; mu_ held.
  void ForgetStale();

  const int max_running_;
  const std::chrono::milliseconds keep_finished_;
  mutable std::mutex mu_;
  std::condition_variable idle_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  int next_ = 0;
  int running_ = 0;
};

// The structured content and text of a call whose job is still running.
ToolResult StillRunning(const Job& job);

}  // namespace hone::mcp
