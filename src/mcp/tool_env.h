// What hone's MCP tools share over a server's life, and the steps every
// tool is made of: resolving a file argument, writing a candidate sent as
// text, running a hone subcommand for the call, reading its JSON.
//
// Ownership: the server owns one ToolEnv and outlives every call; the
// runner, queue and run it points to are the server's too. Thread-safe:
// calls run on their own threads.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "lang/language.h"
#include "mcp/agent_run.h"
#include "mcp/device_queue.h"
#include "mcp/path_guard.h"
#include "mcp/tool_backends.h"
#include "mcp/tool_process.h"

namespace hone::mcp {

// One call's view: its arguments (checked against the tool's schema), its
// cancellation, and where its progress and log lines go (never null).
struct ToolCall {
  nlohmann::json args = nlohmann::json::object();
  const CancelFlag* cancel = nullptr;
  std::function<void(const std::string& line)> progress = [](const std::string&) {};
  std::function<void(const std::string& level, const std::string& text)> log =
      [](const std::string&, const std::string&) {};
  // The session's run in the store, where evaluations land; null: nowhere.
  AgentRun* run = nullptr;
  // The folders the session's client may name files under, when its own
  // (MCP roots); null: the server's.
  std::shared_ptr<const PathGuard> guard;
};

// A candidate named by path or sent as text, as the file hone evaluates.
struct CandidateFile {
  std::filesystem::path path;
  std::string source;
  std::string language;  // lang/language.h's name
  std::string device;    // the backend it runs on unless the call names one
  // A candidate sent as text: its private folder (work/call-N), removed
  // when the last copy of this file's description goes (the call's end).
  std::shared_ptr<const std::filesystem::path> work_folder;
};

class ToolEnv {
 public:
  // `hone`: the program the work runs in (this hone). `work`: this
  // server's own folder for candidates sent as text and progress files.
  // `languages`: what a candidate's file or "language" argument is read in
  // (the entry point's registry), borrowed; it outlives the ToolEnv.
  // `backends`: what the tools offer (the entry point's, mcp/tool_backends.h).
  ToolEnv(std::string hone, PathGuard guard, ChildRunner& runner, DeviceQueue& queue,
          std::filesystem::path work, std::string store, const LanguageRegistry& languages,
          ToolBackends backends)
      : hone_(std::move(hone)),
        guard_(std::move(guard)),
        runner_(runner),
        queue_(queue),
        work_(std::move(work)),
        store_(std::move(store)),
        languages_(languages),
        backends_(std::move(backends)) {}

  // The call's session's roots, else the server's.
  const PathGuard& GuardOf(const ToolCall& call) const { return call.guard ? *call.guard : guard_; }
  const std::string& store() const { return store_; }
  const ToolBackends& backends() const { return backends_; }

  // The call's "candidate" (a path) or "source" and "language" arguments
  // as a file; exactly one way must be given.
  Result<CandidateFile> Candidate(const ToolCall& call);

  // Runs `hone ARGS...` for the call and returns its JSON document (hone's
  // --json output). With `device`, waits for that device's turn first.
  // With `progress`, the command's progress lines (--log) reach the call.
  // A command that fails says so as {"error": ...} (cli/context.h): that
  // message is the Status. Cancelled: Status::Unavailable("cancelled").
  // `exit_code`, when given, receives the command's exit code.
  Result<nlohmann::json> RunHone(const ToolCall& call, std::vector<std::string> args,
                                 const std::optional<std::string>& device, bool progress,
                                 int* exit_code = nullptr);

  // `hone task show PROBLEM --json` (with the size arguments), remembered
  // per problem, sizes and the problem's last change: what the store needs
  // of a task, and the task_show tool's document.
  Result<nlohmann::json> TaskJson(const ToolCall& call, const std::string& problem,
                                  const std::vector<std::string>& size_args);

 private:
  std::filesystem::path NewWorkFile(const std::string& stem, const std::string& extension);
  Status EnsureWorkFolder();

  const std::string hone_;
  const PathGuard guard_;
  ChildRunner& runner_;
  DeviceQueue& queue_;
  const std::filesystem::path work_;
  const std::string store_;
  const LanguageRegistry& languages_;
  const ToolBackends backends_;
  std::atomic<int> next_file_{0};
  std::mutex mu_;
  std::map<std::string, nlohmann::json> tasks_;  // TaskJson's, by problem and sizes
};

// The size arguments (shape_scale, size_policy) as hone's flags.
std::vector<std::string> SizeFlags(const nlohmann::json& args);

}  // namespace hone::mcp
