#include "mcp/agent_run.h"

#include "core/hash.h"
#include "core/json_text.h"

namespace hone::mcp {

AgentRun::~AgentRun() {
  std::lock_guard<std::mutex> lock(mu_);
  if (store_ && run_id_) (void)store_->SetRunStatus(run_id_, "finished");
}

std::optional<int64_t> AgentRun::run_id() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!run_id_) return std::nullopt;
  return run_id_;
}

Status AgentRun::BeginLocked() {
  if (run_id_) return Status::Ok();
  if (!store_) {
    HONE_ASSIGN_OR_RETURN(store_, Store::Open(path_));
  }
  nlohmann::json config = config_;
  config["mcp"] = true;
  HONE_ASSIGN_OR_RETURN(run_id_, store_->CreateRun("optimize", JsonText(config), name_));
  return Status::Ok();
}

Status AgentRun::AddTaskLocked(const AgentAttempt& a) {
  if (trails_.count(a.task_hash)) return Status::Ok();
  TaskRow row;
  row.hash = a.task_hash;
  row.name = a.task_name;
  row.path = a.problem;
  HONE_RETURN_IF_ERROR(store_->PutTask(row));
  int position = static_cast<int>(trails_.size());
  HONE_RETURN_IF_ERROR(store_->AddRunTask(run_id_, a.task_hash, a.category, position));
  trails_[a.task_hash] = Trail();
  return Status::Ok();
}

Result<RecordedAttempt> AgentRun::Record(const AgentAttempt& a) {
  std::lock_guard<std::mutex> lock(mu_);
  HONE_RETURN_IF_ERROR(BeginLocked().With("run store " + path_.string() + ": "));
  HONE_RETURN_IF_ERROR(AddTaskLocked(a));
  CandidateRow c;
  c.run_id = run_id_;
  c.task_hash = a.task_hash;
  c.seq = next_seq_++;
  c.kind = "agent";
  c.label = a.tool;
  Trail& trail = trails_[a.task_hash];
  if (trail.last_seq >= 0) c.parents = {trail.last_seq};
  c.turn = trail.attempts;
  c.backend = a.backend;
  c.language = a.language;
  c.source = a.source;
  HONE_ASSIGN_OR_RETURN(int64_t candidate, store_->AddCandidate(c));
  // Each call is its own unit of work, even for a kernel sent twice.
  std::string key = WorkKey(a.task_hash, SourceHash(a.source) + "#" + std::to_string(c.seq),
                            ContentHash({"mcp-v1", a.tool}));
  HONE_ASSIGN_OR_RETURN(int64_t evaluation,
                        store_->BeginEvaluation(run_id_, key, a.task_hash, candidate));
  HONE_RETURN_IF_ERROR(store_->FinishEvaluationJson(evaluation, JsonText(a.verdict)));
  trail.last_seq = c.seq;
  ++trail.attempts;
  return RecordedAttempt{run_id_, c.seq};
}

}  // namespace hone::mcp
