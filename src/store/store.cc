#include "store/store.h"

#include <sys/time.h>

#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "core/interrupt_cleanup.h"
#include "core/json_text.h"
#include "store/columns.h"
#include "store/record_columns.h"
#include "store/row_reader.h"
#include "store/store_connection.h"
#include "store/verdict_columns.h"
#include "verify/verdict.h"
#include "verify/verdict_json.h"

namespace hone {
namespace {

using json = nlohmann::json;

std::string Now() {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  std::tm tm{};
  gmtime_r(&tv.tv_sec, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(tv.tv_usec / 1000));
  return buf;
}

}  // namespace

std::string WorkKey(const std::string& task_hash, const std::string& source_hash,
                    const std::string& options_hash) {
  return ContentHash({"hone-work-v1", task_hash, source_hash, options_hash});
}

std::string SourceHash(const std::string& source) { return ContentHash({source}); }

Result<std::unique_ptr<Store>> Store::Open(const std::filesystem::path& path) {
  HONE_ASSIGN_OR_RETURN(Db db, OpenStoreConnection(path));
  return std::unique_ptr<Store>(new Store(path, std::move(db)));
}

int Store::schema_version() {
  std::lock_guard lock(mu_);
  auto v = db_.QueryInt("PRAGMA user_version");
  return v.ok() ? static_cast<int>(*v) : -1;
}

// ---- runs ----

Result<int64_t> Store::CreateRun(const std::string& kind, const std::string& config_json,
                                 const std::string& name) {
  if (kind != "optimize" && kind != "bench")
    return Status::Invalid("run kind must be optimize or bench, not '" + kind + "'");
  std::lock_guard lock(mu_);
  std::string now = Now();
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare("INSERT INTO runs(kind, name, created, updated, status, hone_version, "
                           "config) VALUES (?, ?, ?, ?, 'running', ?, ?)"));
  st.Bind(1, kind)
      .Bind(2, name)
      .Bind(3, now)
      .Bind(4, now)
      .Bind(5, HONE_VERSION)
      .Bind(6, config_json.empty() ? std::string("{}") : config_json);
  HONE_RETURN_IF_ERROR(st.Run());
  return db_.LastInsertId();
}

Status Store::SetRunStatus(int64_t run_id, const std::string& status,
                           const std::string& summary_json) {
  if (status != "running" && status != "finished" && status != "failed")
    return Status::Invalid("run status must be running, finished or failed, not '" + status + "'");
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("UPDATE runs SET status = ?, updated = ?, "
                                             "summary = coalesce(?, summary) WHERE id = ?"));
  st.Bind(1, status).Bind(2, Now()).Bind(4, run_id);
  if (summary_json.empty())
    st.BindNull(3);
  else
    st.Bind(3, summary_json);
  HONE_RETURN_IF_ERROR(st.Run());
  if (db_.Changes() == 0) return Status::NotFound("no run " + std::to_string(run_id));
  return Status::Ok();
}

Result<RunRow> Store::GetRun(int64_t run_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT " + SelectList("runs", kRunColumns) +
                                             " FROM runs WHERE id = ?"));
  st.Bind(1, run_id);
  HONE_ASSIGN_OR_RETURN(std::optional<RunRow> run, ReadFirstRow(st, kRunColumns));
  if (!run) return Status::NotFound(path_.string() + ": no run " + std::to_string(run_id));
  return std::move(*run);
}

Result<std::vector<RunRow>> Store::ListRuns() {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT " + SelectList("runs", kRunColumns) +
                                             " FROM runs ORDER BY id DESC"));
  return ReadRows(st, kRunColumns);
}

// ---- tasks and baselines ----

Status Store::PutTask(const TaskRow& t) {
  if (t.hash.empty()) return Status::Invalid("a task needs a hash");
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("INSERT INTO tasks(hash, name, path, definition) "
                                             "VALUES (?, ?, ?, ?) ON CONFLICT(hash) DO NOTHING"));
  st.Bind(1, t.hash).Bind(2, t.name).Bind(3, t.path).Bind(4, t.definition);
  return st.Run();
}

Result<std::optional<TaskRow>> Store::GetTask(const std::string& hash) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT " + SelectList("tasks", kTaskColumns) +
                                             " FROM tasks WHERE hash = ?"));
  st.Bind(1, hash);
  return ReadFirstRow(st, kTaskColumns);
}

Status Store::PutBaseline(const BaselineRow& b) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(
      Stmt st,
      db_.Prepare(
          "INSERT INTO baselines(task_hash, device, torch_version, case_name, "
          "eager_seconds, compile_seconds, samples, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
          "ON CONFLICT(task_hash, device, torch_version, case_name) DO UPDATE SET "
          "eager_seconds = excluded.eager_seconds, compile_seconds = "
          "excluded.compile_seconds, samples = excluded.samples, created = excluded.created"));
  st.Bind(1, b.task_hash).Bind(2, b.device).Bind(3, b.torch_version).Bind(4, b.case_name);
  st.Bind(5, b.eager_seconds).Bind(6, b.compile_seconds).Bind(7, b.samples).Bind(8, Now());
  return st.Run();
}

Result<std::optional<BaselineRow>> Store::GetBaseline(const std::string& task_hash,
                                                      const std::string& device,
                                                      const std::string& torch_version,
                                                      const std::string& case_name) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st,
                        db_.Prepare("SELECT " + SelectList("baselines", kBaselineColumns) +
                                    " FROM baselines WHERE task_hash = ? AND device = ? AND "
                                    "torch_version = ? AND case_name = ?"));
  st.Bind(1, task_hash).Bind(2, device).Bind(3, torch_version).Bind(4, case_name);
  return ReadFirstRow(st, kBaselineColumns);
}

Status Store::AddRunTask(int64_t run_id, const std::string& task_hash, const std::string& category,
                         int position) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("INSERT INTO run_tasks(run_id, task_hash, category, "
                                             "position) VALUES (?, ?, ?, ?) "
                                             "ON CONFLICT(run_id, task_hash) DO NOTHING"));
  st.Bind(1, run_id).Bind(2, task_hash).Bind(3, category).Bind(4, position);
  return st.Run();
}

Result<std::vector<RunTaskRow>> Store::RunTasks(int64_t run_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare("SELECT r.task_hash, t.name, t.path, r.category, r.position FROM "
                           "run_tasks r JOIN tasks t ON t.hash = r.task_hash WHERE r.run_id = ? "
                           "ORDER BY r.position, t.name"));
  st.Bind(1, run_id);
  return ReadRows(st, kRunTaskColumns);
}

// ---- candidates, LLM calls, builds ----

Result<int64_t> Store::InsertLlmCallLocked(const LlmCallRow& c, std::optional<int64_t> candidate) {
  HONE_ASSIGN_OR_RETURN(
      Stmt st,
      db_.Prepare("INSERT INTO llm_calls(run_id, candidate_id, attempt_seq, provider, model, ok, "
                  "error, finish_reason, truncated, input_tokens, output_tokens, cost_usd, "
                  "seconds, http_attempts, exchanges, created, sampling, prompt_version) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  st.Bind(1, c.run_id).Bind(2, candidate ? candidate : c.candidate_id).Bind(3, c.attempt_seq);
  st.Bind(4, c.provider).Bind(5, c.model).Bind(6, c.ok).Bind(7, c.error).Bind(8, c.finish_reason);
  st.Bind(9, c.truncated).Bind(10, c.input_tokens).Bind(11, c.output_tokens);
  st.Bind(12, c.cost_usd).Bind(13, c.seconds).Bind(14, c.http_attempts);
  st.Bind(15, c.exchanges.empty() ? std::string("[]") : c.exchanges).Bind(16, Now());
  st.Bind(17, c.sampling.empty() ? std::string("{}") : c.sampling).Bind(18, c.prompt_version);
  HONE_RETURN_IF_ERROR(st.Run());
  return db_.LastInsertId();
}

Result<int64_t> Store::AddCandidate(const CandidateRow& c, const LlmCallRow* call) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  HONE_RETURN_IF_ERROR(tx.Begin());
  {
    HONE_ASSIGN_OR_RETURN(Stmt st,
                          db_.Prepare("SELECT id FROM candidates WHERE run_id = ? AND seq = ?"));
    st.Bind(1, c.run_id).Bind(2, c.seq);
    HONE_ASSIGN_OR_RETURN(std::optional<int64_t> id,
                          ReadFirstRow(st, [](const RowReader& r) { return r.Int("id"); }));
    if (id) return *id;  // already stored: the transaction rolls back, nothing changed
  }
  HONE_ASSIGN_OR_RETURN(
      Stmt st,
      db_.Prepare("INSERT INTO candidates(run_id, task_hash, seq, kind, lineage, turn, "
                  "parents, backend, source, source_hash, prompt, reply, extraction, "
                  "created, label, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?, ?)"));
  st.Bind(1, c.run_id).Bind(2, c.task_hash).Bind(3, c.seq).Bind(4, c.kind).Bind(5, c.lineage);
  st.Bind(6, c.turn).Bind(7, ParentsJson(c.parents)).Bind(8, c.backend).BindBytes(9, c.source);
  if (c.source)
    st.Bind(10, SourceHash(*c.source));
  else
    st.BindNull(10);
  st.Bind(11, c.prompt).Bind(12, c.reply).Bind(13, c.extraction).Bind(14, Now());
  st.Bind(15, c.label).Bind(16, c.language);
  HONE_RETURN_IF_ERROR(st.Run());
  int64_t id = db_.LastInsertId();
  if (call) {
    LlmCallRow linked = *call;
    linked.run_id = c.run_id;
    if (!linked.attempt_seq) linked.attempt_seq = c.seq;
    HONE_ASSIGN_OR_RETURN(int64_t call_id, InsertLlmCallLocked(linked, id));
    (void)call_id;
  }
  HONE_RETURN_IF_ERROR(tx.Commit());
  return id;
}

Result<int64_t> Store::AddLlmCall(const LlmCallRow& call) {
  std::lock_guard lock(mu_);
  return InsertLlmCallLocked(call, std::nullopt);
}

Result<int64_t> Store::AddBuild(const BuildRow& b) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare("INSERT INTO builds(candidate_id, ok, cached, seconds, log, resources, "
                           "created) VALUES (?, ?, ?, ?, ?, ?, ?)"));
  st.Bind(1, b.candidate_id).Bind(2, b.ok).Bind(3, b.cached).Bind(4, b.seconds).Bind(5, b.log);
  st.Bind(6, b.resources).Bind(7, Now());
  HONE_RETURN_IF_ERROR(st.Run());
  return db_.LastInsertId();
}

Result<std::vector<BuildRow>> Store::Builds(int64_t candidate_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT " + SelectList("builds", kBuildColumns) +
                                             " FROM builds WHERE candidate_id = ? ORDER BY id"));
  st.Bind(1, candidate_id);
  return ReadRows(st, kBuildColumns);
}

Result<std::vector<LlmCallRow>> Store::LlmCalls(int64_t run_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT " + SelectList("llm_calls", kLlmCallColumns) +
                                             " FROM llm_calls WHERE run_id = ? ORDER BY id"));
  st.Bind(1, run_id);
  return ReadRows(st, kLlmCallColumns);
}

// ---- evaluations ----

Result<int64_t> Store::BeginEvaluation(int64_t run_id, const std::string& work_key,
                                       const std::string& task_hash,
                                       std::optional<int64_t> candidate_id,
                                       bool* already_finished) {
  std::lock_guard lock(mu_);
  if (already_finished) *already_finished = false;
  Transaction tx(db_);
  HONE_RETURN_IF_ERROR(tx.Begin());
  {
    HONE_ASSIGN_OR_RETURN(
        Stmt st,
        db_.Prepare("SELECT id, state, coalesce(status, '') AS status FROM evaluations WHERE "
                    "run_id = ? AND work_key = ?"));
    st.Bind(1, run_id).Bind(2, work_key);
    const RowReader r(st);
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (row) {
      int64_t id = r.Int("id");
      // A busy verdict decided nothing: the work is done again.
      if (r.Text("state") == "finished" && Decides(r.Text("status"))) {
        if (already_finished) *already_finished = true;
        return id;
      }
      HONE_ASSIGN_OR_RETURN(Stmt up,
                            db_.Prepare("UPDATE evaluations SET tries = tries + 1, started = ?, "
                                        "candidate_id = coalesce(?, candidate_id) WHERE id = ?"));
      up.Bind(1, Now()).Bind(2, candidate_id).Bind(3, id);
      HONE_RETURN_IF_ERROR(up.Run());
      HONE_RETURN_IF_ERROR(tx.Commit());
      return id;
    }
  }
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare("INSERT INTO evaluations(run_id, work_key, task_hash, candidate_id, "
                           "state, tries, started) VALUES (?, ?, ?, ?, 'started', 1, ?)"));
  st.Bind(1, run_id).Bind(2, work_key).Bind(3, task_hash).Bind(4, candidate_id).Bind(5, Now());
  HONE_RETURN_IF_ERROR(st.Run());
  int64_t id = db_.LastInsertId();
  HONE_RETURN_IF_ERROR(tx.Commit());
  return id;
}

Status Store::FinishEvaluation(int64_t evaluation_id, const Verdict& verdict) {
  // The columns from `verdict` itself: they are then the very numbers its
  // JSON has (reading the JSON back would round its microseconds).
  json j = VerdictToJson(verdict);
  return FinishEvaluationWith(evaluation_id, verdict, JsonText(j), j.contains("timing"), true);
}

Status Store::FinishEvaluationJson(int64_t evaluation_id, const std::string& verdict_json,
                                   bool record_build) {
  json j = json::parse(verdict_json, nullptr, false);
  if (!j.is_object()) return Status::Invalid("a verdict must be a JSON object");
  // The columns come from the verdict as VerdictFromJson reads it, so the
  // table and the JSON cannot disagree; the JSON itself is kept whole
  // (an import's fields hone does not know included). A verdict without a
  // "build" object (an import's) has no build to record.
  HONE_ASSIGN_OR_RETURN(const Verdict v, VerdictFromJson(j));
  return FinishEvaluationWith(evaluation_id, v, JsonText(j), j.contains("timing"),
                              record_build && j.contains("build"));
}

Status Store::FinishEvaluationWith(int64_t evaluation_id, const Verdict& v,
                                   const std::string& verdict_json, bool timed, bool record_build) {
  // Its files removed and its sandbox killed by the same Ctrl-C: left
  // pending, for --resume to evaluate again.
  if (InterruptEnding())
    return Status::Unavailable("an interrupt is ending hone: verdict not stored");
  const EvaluationColumns c = ColumnsOf(v, timed);
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  HONE_RETURN_IF_ERROR(tx.Begin());
  std::optional<int64_t> candidate;
  {
    HONE_ASSIGN_OR_RETURN(Stmt st,
                          db_.Prepare("SELECT state, candidate_id FROM evaluations WHERE id = ?"));
    st.Bind(1, evaluation_id);
    const RowReader r(st);
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row)
      return Status::NotFound(path_.string() + ": no evaluation " + std::to_string(evaluation_id));
    if (r.Text("state") == "finished")
      return Status::Invalid(path_.string() + ": evaluation " + std::to_string(evaluation_id) +
                             " is already finished");
    candidate = r.Get<std::optional<int64_t>>("candidate_id");
  }
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare("UPDATE evaluations SET state = 'finished', status = ?, reason = ?, "
                           "speedup = ?, sol_percent = ?, checks_failed = ?, cand_median_us = ?, "
                           "cand_ci_low_us = ?, cand_ci_high_us = ?, ref_median_us = ?, reps = ?, "
                           "samples = ?, checks = ?, device_state = ?, verdict = ?, finished = ?, "
                           "speedup_compile = ? WHERE id = ?"));
  st.Bind(1, std::string(StatusName(v.status))).Bind(2, v.reason).Bind(3, c.speedup);
  st.Bind(4, c.sol_percent).Bind(5, v.checks_failed()).Bind(6, c.cand_median_us);
  st.Bind(7, c.cand_ci_low_us).Bind(8, c.cand_ci_high_us).Bind(9, c.ref_median_us);
  st.Bind(10, c.reps).Bind(11, JsonText(c.samples)).Bind(12, JsonText(c.checks));
  st.Bind(13, c.device_state).Bind(14, verdict_json).Bind(15, Now());
  st.Bind(16, c.speedup_compile).Bind(17, evaluation_id);
  HONE_RETURN_IF_ERROR(st.Run());
  if (record_build && candidate) {
    HONE_ASSIGN_OR_RETURN(Stmt bs,
                          db_.Prepare("INSERT INTO builds(candidate_id, ok, cached, seconds, log, "
                                      "resources, created) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    bs.Bind(1, *candidate).Bind(2, v.status != VerdictStatus::kCompileError);
    bs.Bind(3, v.build.cached).Bind(4, v.build.seconds).Bind(5, v.build.log);
    bs.Bind(6, v.build.resources).Bind(7, Now());
    HONE_RETURN_IF_ERROR(bs.Run());
  }
  return tx.Commit();
}

Result<bool> Store::HasResult(int64_t run_id, const std::string& work_key) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT 1 FROM evaluations WHERE run_id = ? AND "
                                             "work_key = ? AND state = 'finished'"));
  st.Bind(1, run_id).Bind(2, work_key);
  return st.Step();
}

Result<std::vector<EvaluationRow>> Store::PendingWork(int64_t run_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT " + SelectList("e", kEvaluationColumns) +
                                             " FROM evaluations e WHERE e.run_id = ? AND "
                                             "e.state = 'started' ORDER BY e.id"));
  st.Bind(1, run_id);
  return ReadRows(st, kEvaluationColumns);
}

Result<EvaluationRow> Store::GetEvaluation(int64_t evaluation_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT " + SelectList("e", kEvaluationColumns) +
                                             " FROM evaluations e WHERE e.id = ?"));
  st.Bind(1, evaluation_id);
  HONE_ASSIGN_OR_RETURN(std::optional<EvaluationRow> e, ReadFirstRow(st, kEvaluationColumns));
  if (!e)
    return Status::NotFound(path_.string() + ": no evaluation " + std::to_string(evaluation_id));
  return std::move(*e);
}

// ---- lessons ----

Result<int> Store::AddLessons(const std::vector<LessonRow>& lessons) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  HONE_RETURN_IF_ERROR(tx.Begin());
  int added = 0;
  for (const LessonRow& l : lessons) {
    HONE_ASSIGN_OR_RETURN(
        Stmt st,
        db_.Prepare("INSERT INTO lessons(run_id, task_hash, task_name, category, backend, "
                    "signature, candidate_id, basis, basis_candidate_id, change, speedup_before, "
                    "speedup_after, sol_before, sol_after, evidence, created) VALUES (?, ?, ?, "
                    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT(run_id, candidate_id, basis) DO NOTHING"));
    st.Bind(1, l.run_id).Bind(2, l.task_hash).Bind(3, l.task_name).Bind(4, l.category);
    st.Bind(5, l.backend).Bind(6, l.signature.empty() ? std::string("{}") : l.signature);
    st.Bind(7, l.candidate_id).Bind(8, l.basis).Bind(9, l.basis_candidate_id).Bind(10, l.change);
    st.Bind(11, l.speedup_before).Bind(12, l.speedup_after).Bind(13, l.sol_before);
    st.Bind(14, l.sol_after).Bind(15, l.evidence.empty() ? std::string("{}") : l.evidence);
    st.Bind(16, Now());
    HONE_RETURN_IF_ERROR(st.Run());
    added += db_.Changes();
  }
  HONE_RETURN_IF_ERROR(tx.Commit());
  return added;
}

Result<std::vector<LessonRow>> Store::Lessons(const std::string& task) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare("SELECT " + SelectList("lessons", kLessonColumns) +
                           " FROM lessons WHERE ?1 = '' OR task_name = ?1 OR (length(?1) >= 8 "
                           "AND substr(task_hash, 1, length(?1)) = ?1) ORDER BY id"));
  st.Bind(1, task);
  return ReadRows(st, kLessonColumns);
}

Result<std::vector<LessonRow>> Store::LessonsFor(const std::string& backend) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT " + SelectList("lessons", kLessonColumns) +
                                             " FROM lessons WHERE backend = ? ORDER BY id"));
  st.Bind(1, backend);
  return ReadRows(st, kLessonColumns);
}

Status Store::DeleteLessons(const std::vector<int64_t>& ids) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  HONE_RETURN_IF_ERROR(tx.Begin());
  for (int64_t id : ids) {
    HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("DELETE FROM lessons WHERE id = ?"));
    st.Bind(1, id);
    HONE_RETURN_IF_ERROR(st.Run());
    // Not stored (or named twice): nothing is deleted.
    if (db_.Changes() == 0)
      return Status::NotFound(path_.string() + ": no lesson " + std::to_string(id));
  }
  return tx.Commit();
}

// ---- report queries ----

Result<std::vector<CandidateWithEvaluation>> Store::RunCandidates(int64_t run_id) {
  std::lock_guard lock(mu_);
  // One read transaction, so the candidates and evaluations are one snapshot.
  HONE_ASSIGN_OR_RETURN(
      Stmt st,
      db_.Prepare("SELECT " + SelectList("c", kCandidateColumns) + ", " +
                  SelectList("e", kEvaluationColumns, "e.") +
                  " FROM candidates c LEFT JOIN evaluations e ON e.id = (SELECT max(id) FROM "
                  "evaluations WHERE candidate_id = c.id) WHERE c.run_id = ? ORDER BY c.seq"));
  st.Bind(1, run_id);
  // The evaluation's columns are named "e.*": both tables have an id.
  const RowReader evaluation = RowReader(st).Scope("e.");
  return ReadRows(st, [&](const RowReader& row) {
    std::optional<EvaluationRow> latest;
    if (!evaluation.IsNull("id")) latest = ReadColumns(evaluation, kEvaluationColumns);
    return CandidateWithEvaluation{ReadColumns(row, kCandidateColumns), std::move(latest)};
  });
}

Result<std::vector<CandidateRow>> Store::Attempts(int64_t run_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare("SELECT " + SelectList("c", kCandidateColumns) +
                                             " FROM candidates c WHERE c.run_id = ? ORDER BY "
                                             "c.id"));
  st.Bind(1, run_id);
  return ReadRows(st, kCandidateColumns);
}

Result<std::vector<BestCandidate>> Store::BestPerTask(int64_t run_id) {
  std::lock_guard lock(mu_);
  // Ties on speedup go to the earliest evaluation.
  HONE_ASSIGN_OR_RETURN(
      Stmt st,
      db_.Prepare("SELECT task_hash, name, run_id, candidate_id, seq, eid, speedup FROM ("
                  "  SELECT e.task_hash, t.name, e.run_id, e.candidate_id, c.seq, e.id AS eid, "
                  "    e.speedup, row_number() OVER (PARTITION BY e.task_hash "
                  "      ORDER BY e.speedup DESC, e.id) AS rank "
                  "  FROM evaluations e JOIN tasks t ON t.hash = e.task_hash "
                  "  LEFT JOIN candidates c ON c.id = e.candidate_id "
                  "  WHERE e.state = 'finished' AND e.status = 'passed' "
                  "    AND (?1 = 0 OR e.run_id = ?1)) "
                  "WHERE rank = 1 ORDER BY name, task_hash"));
  st.Bind(1, run_id);
  return ReadRows(st, kBestColumns);
}

Result<std::map<std::string, int>> Store::StatusCounts(int64_t run_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(
      Stmt st,
      db_.Prepare("SELECT CASE WHEN state = 'finished' THEN status ELSE 'pending' END AS s, "
                  "count(*) AS n FROM evaluations WHERE run_id = ? GROUP BY s"));
  st.Bind(1, run_id);
  HONE_ASSIGN_OR_RETURN(auto counts, ReadRows(st, [](const RowReader& r) {
                          return std::pair(r.Text("s"), r.Int32("n"));
                        }));
  return std::map<std::string, int>(counts.begin(), counts.end());
}

}  // namespace hone
