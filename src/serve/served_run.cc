#include "serve/served_run.h"

#include "core/fs.h"
#include "core/hash.h"
#include "core/json_text.h"

namespace hone {

Result<std::unique_ptr<ServedRun>> ServedRun::Begin(const std::filesystem::path& store,
                                                    const std::string& consumer,
                                                    nlohmann::json config) {
  HONE_ASSIGN_OR_RETURN(auto db, Store::Open(store));
  config["served"] = true;
  config["consumer"] = consumer;
  HONE_ASSIGN_OR_RETURN(int64_t run,
                        db->CreateRun("bench", JsonText(config), "worker " + consumer));
  return std::unique_ptr<ServedRun>(new ServedRun(std::move(db), run));
}

ServedRun::~ServedRun() { (void)store_->SetRunStatus(run_id_, "finished"); }

Status ServedRun::Record(const EvalJob& job, const Task& task, const fs::path& problem,
                         const std::string& backend, const Verdict& verdict) {
  if (!tasks_.count(task.hash)) {
    TaskRow row;
    row.hash = task.hash;
    row.name = task.name;
    // A problem sent as source lived in a folder that is gone by now.
    row.path = job.problem_code.empty() ? AbsolutePath(problem) : "";
    HONE_RETURN_IF_ERROR(store_->PutTask(row));
    int position = static_cast<int>(tasks_.size());
    HONE_RETURN_IF_ERROR(store_->AddRunTask(run_id_, task.hash, task.category, position));
    tasks_.insert(task.hash);
  }
  CandidateRow c;
  c.run_id = run_id_;
  c.task_hash = task.hash;
  c.seq = seq_++;
  c.kind = "served";
  c.label = job.id;
  c.backend = backend;
  c.language = verdict.language;
  c.source = job.candidate_code;
  HONE_ASSIGN_OR_RETURN(int64_t candidate, store_->AddCandidate(c));
  std::string key = WorkKey(task.hash, SourceHash(job.candidate_code) + "#" + job.id,
                            ContentHash({"served-v1", JsonText(job.config)}));
  HONE_ASSIGN_OR_RETURN(int64_t eval, store_->BeginEvaluation(run_id_, key, task.hash, candidate));
  return store_->FinishEvaluation(eval, verdict);
}

}  // namespace hone
