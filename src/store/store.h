// The run store: every run, task, baseline, candidate, build, evaluation and
// LLM call of hone, in one SQLite file (WAL journal), so that a killed run
// can be resumed with nothing lost and nothing evaluated twice, and reports
// can read while a run writes. docs/STORE.md describes the schema and the
// durability argument.
//
// Every write method is one transaction, committed (and synced: synchronous
// = FULL) before it returns. Resumable work goes through evaluations keyed
// by (run, work_key): BeginEvaluation records that a unit started,
// FinishEvaluation commits its verdict (refused once an interrupt is ending
// the process: core/interrupt_cleanup.h); after a crash PendingWork lists the
// units begun but never finished, and HasResult says whether a unit is done.
//
// Thread safety: a Store is internally serialised (one connection behind a
// mutex), so threads may share one. Other processes, or other Stores on the
// same file, may read and write at the same time: readers see the last
// committed state and never wait on a writer; writers wait for each other
// up to the busy timeout (10 s). Do not use a Store across fork(): open a
// new one in the child.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/records.h"
#include "store/sqlite_db.h"
#include "verify/verdict.h"

namespace hone {

// Identifies one unit of evaluation work: the task, the candidate's source
// and the evaluation options (their hash, as the caller defines it).
std::string WorkKey(const std::string& task_hash, const std::string& source_hash,
                    const std::string& options_hash);
// The content hash the store gives a candidate's source.
std::string SourceHash(const std::string& source);

class Store {
 public:
  // Opens the store at `path`, creating it (and its folder) when missing and
  // upgrading an older schema. Errors name the file: not a hone store,
  // written by a newer hone, cannot be opened.
  static Result<std::unique_ptr<Store>> Open(const std::filesystem::path& path);
  const std::filesystem::path& path() const { return path_; }
  int schema_version();

  // Runs.
  Result<int64_t> CreateRun(const std::string& kind, const std::string& config_json,
                            const std::string& name = "");
  // status: "running" (a resumed run), "finished" or "failed"; summary JSON
  // may be empty to keep the stored one.
  Status SetRunStatus(int64_t run_id, const std::string& status,
                      const std::string& summary_json = "");
  Result<RunRow> GetRun(int64_t run_id);
  Result<std::vector<RunRow>> ListRuns();  // newest first

  // Tasks and baselines (content-addressed: re-putting a task is a no-op;
  // re-putting a baseline for the same task, device, torch and case
  // replaces it).
  Status PutTask(const TaskRow& task);
  Result<std::optional<TaskRow>> GetTask(const std::string& hash);
  // A run's suite: which tasks it covers, in order, with their category.
  // Idempotent (the first category and position stay). The task must have
  // been put.
  Status AddRunTask(int64_t run_id, const std::string& task_hash, const std::string& category,
                    int position);
  Result<std::vector<RunTaskRow>> RunTasks(int64_t run_id);  // by position
  Status PutBaseline(const BaselineRow& b);
  Result<std::optional<BaselineRow>> GetBaseline(const std::string& task_hash,
                                                 const std::string& device,
                                                 const std::string& torch_version,
                                                 const std::string& case_name = "");

  // Candidates (attempts). Idempotent on (run, seq): adding an existing one
  // returns its id and changes nothing. `call`, when given, is stored with
  // it in the same transaction and linked to it.
  Result<int64_t> AddCandidate(const CandidateRow& c, const LlmCallRow* call = nullptr);
  Result<int64_t> AddLlmCall(const LlmCallRow& call);
  Result<int64_t> AddBuild(const BuildRow& b);
  Result<std::vector<BuildRow>> Builds(int64_t candidate_id);
  Result<std::vector<LlmCallRow>> LlmCalls(int64_t run_id);

  // Evaluations. BeginEvaluation returns the evaluation's id; when the unit
  // is already finished it returns that id with *already_finished = true
  // and changes nothing (skip it). Beginning an unfinished one again (after
  // a crash) counts another try.
  Result<int64_t> BeginEvaluation(int64_t run_id, const std::string& work_key,
                                  const std::string& task_hash, std::optional<int64_t> candidate_id,
                                  bool* already_finished = nullptr);
  // Commits the verdict (and, when the evaluation has a candidate, the build
  // the verdict describes) in one transaction.
  Status FinishEvaluation(int64_t evaluation_id, const Verdict& verdict);
  // The same from a verdict's JSON (verify/verdict_json.h), for imports.
  Status FinishEvaluationJson(int64_t evaluation_id, const std::string& verdict_json,
                              bool record_build = true);
  Result<bool> HasResult(int64_t run_id, const std::string& work_key);
  Result<std::vector<EvaluationRow>> PendingWork(int64_t run_id);  // begun, not finished
  Result<EvaluationRow> GetEvaluation(int64_t evaluation_id);

  // Lessons (docs/STORE.md). AddLessons stores them in one transaction and
  // returns how many were new: a lesson already stored for the same run,
  // candidate and basis is left as it is. Lessons(task) lists them by id;
  // `task` (may be empty: all) is a task name, or a task hash or its first
  // 8 or more characters.
  // DeleteLessons deletes all of `ids` or, when one is not stored, none
  // (kNotFound naming it).
  Result<int> AddLessons(const std::vector<LessonRow>& lessons);
  Result<std::vector<LessonRow>> Lessons(const std::string& task = "");
  // The lessons learnt on `backend`, for recall.
  Result<std::vector<LessonRow>> LessonsFor(const std::string& backend);
  Status DeleteLessons(const std::vector<int64_t>& ids);

  // Queries for reports.
  Result<std::vector<CandidateWithEvaluation>> RunCandidates(int64_t run_id);  // by seq
  Result<std::vector<CandidateRow>> Attempts(int64_t run_id);                  // insertion order
  // The passed evaluation with the highest speedup per task, in `run_id`
  // (0: over all runs).
  Result<std::vector<BestCandidate>> BestPerTask(int64_t run_id = 0);
  // Finished evaluations by verdict status, plus "pending" for begun ones.
  Result<std::map<std::string, int>> StatusCounts(int64_t run_id);

 private:
  // Both of the above: the evaluation's columns from `v`, its JSON as
  // `verdict_json`. `timed`: the JSON has a timing section.
  Status FinishEvaluationWith(int64_t evaluation_id, const Verdict& v,
                              const std::string& verdict_json, bool timed, bool record_build);
  Store(std::filesystem::path path, Db db) : path_(std::move(path)), db_(std::move(db)) {}
  Result<int64_t> InsertLlmCallLocked(const LlmCallRow& call, std::optional<int64_t> candidate);

  std::filesystem::path path_;
  std::mutex mu_;
  Db db_;
};

}  // namespace hone
