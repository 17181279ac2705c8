// What an agent evaluates through `hone mcp`, in the run store
// (store/store.h), so that `hone report` shows its whole trajectory as it
// shows an optimize run's: one run per MCP session (kind "optimize", named
// "mcp CLIENT", its config saying {"mcp": true, ...}), begun at the
// session's first evaluation; each evaluation one attempt of it (kind
// "agent", label the tool that ran it), its parent the agent's previous
// attempt on the same task, and its verdict.
//
// Ownership: owns its Store once opened. Thread-safe (calls record from
// their own threads). A store that cannot be opened or written is a Status
// the tool reports beside its verdict; the verdict still reaches the agent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "store/store.h"

namespace hone::mcp {

struct AgentAttempt {
  // The task as `hone task show --json` describes it (hash, name, category)
  // and the problem's path.
  std::string task_hash, task_name, category, problem;
  std::string backend, language;
  std::string source;  // the candidate's text
  std::string tool;    // "eval", "profile"
  nlohmann::json verdict;
};

struct RecordedAttempt {
  int64_t run_id = 0;
  int seq = 0;
};

class AgentRun {
 public:
  AgentRun(std::filesystem::path store, std::string name, nlohmann::json config)
      : path_(std::move(store)), name_(std::move(name)), config_(std::move(config)) {}
  ~AgentRun();  // marks the run finished, when one was begun
  AgentRun(const AgentRun&) = delete;
  AgentRun& operator=(const AgentRun&) = delete;

  Result<RecordedAttempt> Record(const AgentAttempt& a);
  // The run's id once the first attempt began it.
  std::optional<int64_t> run_id() const;
  const std::filesystem::path& store_path() const { return path_; }

 private:
  Status BeginLocked();
  Status AddTaskLocked(const AgentAttempt& a);

  const std::filesystem::path path_;
  const std::string name_;
  const nlohmann::json config_;
  mutable std::mutex mu_;
  std::unique_ptr<Store> store_;
  int64_t run_id_ = 0;
  int next_seq_ = 0;
  // Per task hash: the agent's last attempt on it and how many it made.
  struct Trail {
    int last_seq = -1;
    int attempts = 0;
  };
  std::map<std::string, Trail> trails_;
};

}  // namespace hone::mcp
