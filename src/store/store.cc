#include "store/store.h"

#include <sys/time.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "core/hash.h"
#include "core/json_text.h"
#include "store/schema.h"
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

std::string ParentsJson(const std::vector<int>& parents) { return JsonText(json(parents)); }

std::vector<int> ParseParents(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  std::vector<int> out;
  if (j.is_array())
    for (const auto& x : j)
      if (x.is_number_integer()) out.push_back(x.get<int>());
  return out;
}

constexpr const char* kRunCols =
    "id, kind, name, created, updated, status, hone_version, config, summary";
RunRow ReadRun(const Stmt& s) {
  RunRow r;
  r.id = s.Int(0);
  r.kind = s.Text(1);
  r.name = s.Text(2);
  r.created = s.Text(3);
  r.updated = s.Text(4);
  r.status = s.Text(5);
  r.hone_version = s.Text(6);
  r.config = s.Text(7);
  r.summary = s.Text(8);
  return r;
}

constexpr const char* kCandidateCols =
    "c.id, c.run_id, c.task_hash, c.seq, c.kind, c.lineage, c.turn, c.parents, c.backend, "
    "c.source, c.source_hash, c.prompt, c.reply, c.extraction, c.created, c.label, c.language";
constexpr int kCandidateNumCols = 17;
CandidateRow ReadCandidate(const Stmt& s, int o = 0) {
  CandidateRow c;
  c.id = s.Int(o + 0);
  c.run_id = s.Int(o + 1);
  c.task_hash = s.Text(o + 2);
  c.seq = static_cast<int>(s.Int(o + 3));
  c.kind = s.Text(o + 4);
  c.lineage = static_cast<int>(s.Int(o + 5));
  c.turn = static_cast<int>(s.Int(o + 6));
  c.parents = ParseParents(s.Text(o + 7));
  c.backend = s.Text(o + 8);
  if (!s.IsNull(o + 9)) c.source = s.Text(o + 9);
  c.source_hash = s.Text(o + 10);
  c.prompt = s.Text(o + 11);
  c.reply = s.Text(o + 12);
  c.extraction = s.Text(o + 13);
  c.created = s.Text(o + 14);
  c.label = s.Text(o + 15);
  c.language = s.Text(o + 16);
  return c;
}

constexpr const char* kEvalCols =
    "e.id, e.run_id, e.work_key, e.task_hash, e.candidate_id, e.state, e.tries, e.status, "
    "e.reason, e.speedup, e.sol_percent, e.checks_failed, e.cand_median_us, e.cand_ci_low_us, "
    "e.cand_ci_high_us, e.ref_median_us, e.reps, e.samples, e.checks, e.device_state, e.verdict, "
    "e.started, e.finished, e.speedup_compile";
EvaluationRow ReadEvaluation(const Stmt& s, int o = 0) {
  EvaluationRow e;
  e.id = s.Int(o + 0);
  e.run_id = s.Int(o + 1);
  e.work_key = s.Text(o + 2);
  e.task_hash = s.Text(o + 3);
  if (!s.IsNull(o + 4)) e.candidate_id = s.Int(o + 4);
  e.state = s.Text(o + 5);
  e.tries = static_cast<int>(s.Int(o + 6));
  e.status = s.Text(o + 7);
  e.reason = s.Text(o + 8);
  e.speedup = s.OptReal(o + 9);
  e.sol_percent = s.OptReal(o + 10);
  e.checks_failed = static_cast<int>(s.Int(o + 11));
  e.cand_median_us = s.OptReal(o + 12);
  e.cand_ci_low_us = s.OptReal(o + 13);
  e.cand_ci_high_us = s.OptReal(o + 14);
  e.ref_median_us = s.OptReal(o + 15);
  e.reps = static_cast<int>(s.Int(o + 16));
  e.samples = s.Text(o + 17);
  e.checks = s.Text(o + 18);
  e.device_state = s.Text(o + 19);
  e.verdict = s.Text(o + 20);
  e.started = s.Text(o + 21);
  e.finished = s.Text(o + 22);
  e.speedup_compile = s.OptReal(o + 23);
  return e;
}

constexpr const char* kLessonCols =
    "id, run_id, task_hash, task_name, category, backend, signature, candidate_id, basis, "
    "basis_candidate_id, change, speedup_before, speedup_after, sol_before, sol_after, evidence, "
    "created";
LessonRow ReadLesson(const Stmt& s) {
  LessonRow l;
  l.id = s.Int(0);
  l.run_id = s.Int(1);
  l.task_hash = s.Text(2);
  l.task_name = s.Text(3);
  l.category = s.Text(4);
  l.backend = s.Text(5);
  l.signature = s.Text(6);
  l.candidate_id = s.Int(7);
  l.basis = s.Text(8);
  if (!s.IsNull(9)) l.basis_candidate_id = s.Int(9);
  l.change = s.Text(10);
  l.speedup_before = s.Real(11);
  l.speedup_after = s.Real(12);
  l.sol_before = s.OptReal(13);
  l.sol_after = s.OptReal(14);
  l.evidence = s.Text(15);
  l.created = s.Text(16);
  return l;
}

// The evaluations table's columns that summarise a verdict (times in
// microseconds, as the JSON has them).
struct EvaluationColumns {
  std::optional<double> speedup, speedup_compile, sol_percent;
  std::optional<double> cand_median_us, cand_ci_low_us, cand_ci_high_us, ref_median_us;
  int reps = 0;
  json samples = json::object();  // {"candidate_us": [...], "reference_us": [...]}
  json checks = json::array();
  std::string device_state;  // its JSON, CUDA only
};

// `timed`: the verdict has a timing section (hone writes one for a timed
// candidate; an import may have a speedup without the times). A speedup of
// 0 for torch.compile means there was none.
EvaluationColumns ColumnsOf(const Verdict& v, bool timed) {
  auto micros = [](const std::vector<double>& seconds) {
    json out = json::array();
    for (double s : seconds) out.push_back(s * 1e6);
    return out;
  };
  const Verdict::Timing& t = v.timing;
  EvaluationColumns c;
  if (timed) {
    c.speedup = t.speedup;
    c.sol_percent = t.sol_percent;
    if (t.compile_time || t.speedup_compile != 0) c.speedup_compile = t.speedup_compile;
  }
  if (t.candidate_time) {
    const SampleSummary& s = t.candidate_time->summary;
    c.cand_median_us = s.median * 1e6;
    if (s.ci_high > 0) {  // an interval was measured
      c.cand_ci_low_us = s.ci_low * 1e6;
      c.cand_ci_high_us = s.ci_high * 1e6;
    }
    c.reps = s.count;
    c.samples["candidate_us"] = micros(t.candidate_time->samples);
  }
  if (t.reference_time) {
    c.ref_median_us = t.reference_time->summary.median * 1e6;
    c.samples["reference_us"] = micros(t.reference_time->samples);
  }
  c.checks = ChecksToJson(v.checks);
  if (t.device_state) c.device_state = JsonText(DeviceStateToJson(*t.device_state));
  return c;
}

}  // namespace

std::string WorkKey(const std::string& task_hash, const std::string& source_hash,
                    const std::string& options_hash) {
  return ContentHash({"hone-work-v1", task_hash, source_hash, options_hash});
}

std::string SourceHash(const std::string& source) { return ContentHash({source}); }

namespace {

// How long a connection waits for another's lock, in SQLite's busy handler
// and in Open's retries of the set-up alike.
constexpr std::chrono::milliseconds kBusyWait{10000};

// The connection's settings, the store's identity, WAL and the schema.
Status SetUpConnection(Db& db, const std::filesystem::path& path) {
  HONE_RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys = ON"));
  // Reading the header is the first access: a file that is not a hone store
  // (or is from a newer hone) is refused here, before anything is written.
  HONE_RETURN_IF_ERROR(CheckStoreIdentity(db));
  {
    HONE_ASSIGN_OR_RETURN(Stmt st, db.Prepare("PRAGMA journal_mode = WAL"));
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row || st.Text(0) != "wal")
      return Status::Io(path.string() + ": cannot switch the store to WAL mode (" +
                        (row ? st.Text(0) : std::string("no answer")) +
                        "); is it on a network file system?");
  }
  HONE_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous = FULL"));
  return MigrateToCurrent(db);
}

}  // namespace

Result<std::unique_ptr<Store>> Store::Open(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
      return Status::Io(path.string() + ": cannot create the store's folder: " + ec.message());
  }
  if (std::filesystem::is_directory(path, ec))
    return Status::Invalid(path.string() + ": not a hone store (a directory)");
  HONE_ASSIGN_OR_RETURN(Db db, Db::Open(path.string(), /*create=*/true));
  // The busy timeout first: the journal-mode switch below needs a lock.
  sqlite3_busy_timeout(db.raw(), static_cast<int>(kBusyWait.count()));
  // Connections that set up one new store at once can still be told "busy"
  // at once (SQLite's deadlock avoidance: two readers that both want the
  // exclusive lock of the switch to WAL): every step is idempotent, so the
  // set-up is tried again for as long as the busy timeout would wait.
  const auto deadline = std::chrono::steady_clock::now() + kBusyWait;
  std::mt19937 jitter(std::random_device{}());
  while (true) {
    Status s = SetUpConnection(db, path);
    if (s.ok()) break;
    const bool busy = (sqlite3_errcode(db.raw()) & 0xff) == SQLITE_BUSY;
    if (!busy || std::chrono::steady_clock::now() > deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + jitter() % 20));
  }
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
  HONE_ASSIGN_OR_RETURN(Stmt st,
                        db_.Prepare(std::string("SELECT ") + kRunCols + " FROM runs WHERE id = ?"));
  st.Bind(1, run_id);
  HONE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound(path_.string() + ": no run " + std::to_string(run_id));
  return ReadRun(st);
}

Result<std::vector<RunRow>> Store::ListRuns() {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare(std::string("SELECT ") + kRunCols + " FROM runs ORDER BY id DESC"));
  std::vector<RunRow> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadRun(st));
  }
  return out;
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
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare("SELECT hash, name, path, definition FROM tasks WHERE hash = ?"));
  st.Bind(1, hash);
  HONE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<TaskRow>();
  return std::optional<TaskRow>(TaskRow{st.Text(0), st.Text(1), st.Text(2), st.Text(3)});
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
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare("SELECT id, task_hash, device, torch_version, case_name, "
                           "eager_seconds, compile_seconds, samples, created FROM baselines "
                           "WHERE task_hash = ? AND device = ? AND torch_version = ? AND "
                           "case_name = ?"));
  st.Bind(1, task_hash).Bind(2, device).Bind(3, torch_version).Bind(4, case_name);
  HONE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<BaselineRow>();
  BaselineRow b;
  b.id = st.Int(0);
  b.task_hash = st.Text(1);
  b.device = st.Text(2);
  b.torch_version = st.Text(3);
  b.case_name = st.Text(4);
  b.eager_seconds = st.OptReal(5);
  b.compile_seconds = st.OptReal(6);
  b.samples = st.Text(7);
  b.created = st.Text(8);
  return std::optional<BaselineRow>(std::move(b));
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
  std::vector<RunTaskRow> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back({st.Text(0), st.Text(1), st.Text(2), st.Text(3), static_cast<int>(st.Int(4))});
  }
  return out;
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
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (row) return st.Int(0);  // already stored: the transaction rolls back, nothing changed
  }
  HONE_ASSIGN_OR_RETURN(
      Stmt st,
      db_.Prepare("INSERT INTO candidates(run_id, task_hash, seq, kind, lineage, turn, "
                  "parents, backend, source, source_hash, prompt, reply, extraction, "
                  "created, label, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?, ?)"));
  st.Bind(1, c.run_id).Bind(2, c.task_hash).Bind(3, c.seq).Bind(4, c.kind).Bind(5, c.lineage);
  st.Bind(6, c.turn).Bind(7, ParentsJson(c.parents)).Bind(8, c.backend).Bind(9, c.source);
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
  HONE_ASSIGN_OR_RETURN(
      Stmt st, db_.Prepare("SELECT id, candidate_id, ok, cached, seconds, log, resources, created "
                           "FROM builds WHERE candidate_id = ? ORDER BY id"));
  st.Bind(1, candidate_id);
  std::vector<BuildRow> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    BuildRow b;
    b.id = st.Int(0);
    b.candidate_id = st.Int(1);
    b.ok = st.Int(2) != 0;
    b.cached = st.Int(3) != 0;
    b.seconds = st.Real(4);
    b.log = st.Text(5);
    b.resources = st.Text(6);
    b.created = st.Text(7);
    out.push_back(std::move(b));
  }
  return out;
}

Result<std::vector<LlmCallRow>> Store::LlmCalls(int64_t run_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(
      Stmt st,
      db_.Prepare("SELECT id, run_id, candidate_id, attempt_seq, provider, model, ok, error, "
                  "finish_reason, truncated, input_tokens, output_tokens, cost_usd, seconds, "
                  "http_attempts, exchanges, created, sampling, prompt_version FROM llm_calls "
                  "WHERE run_id = ? ORDER BY id"));
  st.Bind(1, run_id);
  std::vector<LlmCallRow> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    LlmCallRow c;
    c.id = st.Int(0);
    c.run_id = st.Int(1);
    if (!st.IsNull(2)) c.candidate_id = st.Int(2);
    if (!st.IsNull(3)) c.attempt_seq = static_cast<int>(st.Int(3));
    c.provider = st.Text(4);
    c.model = st.Text(5);
    c.ok = st.Int(6) != 0;
    c.error = st.Text(7);
    c.finish_reason = st.Text(8);
    c.truncated = st.Int(9) != 0;
    c.input_tokens = st.Int(10);
    c.output_tokens = st.Int(11);
    c.cost_usd = st.Real(12);
    c.seconds = st.Real(13);
    c.http_attempts = static_cast<int>(st.Int(14));
    c.exchanges = st.Text(15);
    c.created = st.Text(16);
    c.sampling = st.Text(17);
    c.prompt_version = st.Text(18);
    out.push_back(std::move(c));
  }
  return out;
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
        db_.Prepare("SELECT id, state, coalesce(status, '') FROM evaluations WHERE run_id = ? AND "
                    "work_key = ?"));
    st.Bind(1, run_id).Bind(2, work_key);
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (row) {
      int64_t id = st.Int(0);
      // A busy verdict decided nothing: the work is done again.
      if (st.Text(1) == "finished" && Decides(st.Text(2))) {
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
  const EvaluationColumns c = ColumnsOf(v, timed);
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  HONE_RETURN_IF_ERROR(tx.Begin());
  std::optional<int64_t> candidate;
  {
    HONE_ASSIGN_OR_RETURN(Stmt st,
                          db_.Prepare("SELECT state, candidate_id FROM evaluations WHERE id = ?"));
    st.Bind(1, evaluation_id);
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row)
      return Status::NotFound(path_.string() + ": no evaluation " + std::to_string(evaluation_id));
    if (st.Text(0) == "finished")
      return Status::Invalid(path_.string() + ": evaluation " + std::to_string(evaluation_id) +
                             " is already finished");
    if (!st.IsNull(1)) candidate = st.Int(1);
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
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare(std::string("SELECT ") + kEvalCols +
                                             " FROM evaluations e WHERE e.run_id = ? AND "
                                             "e.state = 'started' ORDER BY e.id"));
  st.Bind(1, run_id);
  std::vector<EvaluationRow> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadEvaluation(st));
  }
  return out;
}

Result<EvaluationRow> Store::GetEvaluation(int64_t evaluation_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare(std::string("SELECT ") + kEvalCols +
                                             " FROM evaluations e WHERE e.id = ?"));
  st.Bind(1, evaluation_id);
  HONE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row)
    return Status::NotFound(path_.string() + ": no evaluation " + std::to_string(evaluation_id));
  return ReadEvaluation(st);
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
      Stmt st, db_.Prepare(std::string("SELECT ") + kLessonCols +
                           " FROM lessons WHERE ?1 = '' OR task_name = ?1 OR (length(?1) >= 8 "
                           "AND substr(task_hash, 1, length(?1)) = ?1) ORDER BY id"));
  st.Bind(1, task);
  std::vector<LessonRow> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadLesson(st));
  }
  return out;
}

Result<std::vector<LessonRow>> Store::LessonsFor(const std::string& backend) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare(std::string("SELECT ") + kLessonCols +
                                             " FROM lessons WHERE backend = ? ORDER BY id"));
  st.Bind(1, backend);
  std::vector<LessonRow> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadLesson(st));
  }
  return out;
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
      db_.Prepare(std::string("SELECT ") + kCandidateCols + ", " + kEvalCols +
                  " FROM candidates c LEFT JOIN evaluations e ON e.id = (SELECT max(id) FROM "
                  "evaluations WHERE candidate_id = c.id) WHERE c.run_id = ? ORDER BY c.seq"));
  st.Bind(1, run_id);
  std::vector<CandidateWithEvaluation> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    CandidateWithEvaluation cw;
    cw.candidate = ReadCandidate(st);
    if (!st.IsNull(kCandidateNumCols)) cw.evaluation = ReadEvaluation(st, kCandidateNumCols);
    out.push_back(std::move(cw));
  }
  return out;
}

Result<std::vector<CandidateRow>> Store::Attempts(int64_t run_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(Stmt st, db_.Prepare(std::string("SELECT ") + kCandidateCols +
                                             " FROM candidates c WHERE c.run_id = ? ORDER BY "
                                             "c.id"));
  st.Bind(1, run_id);
  std::vector<CandidateRow> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadCandidate(st));
  }
  return out;
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
  std::vector<BestCandidate> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    BestCandidate b;
    b.task_hash = st.Text(0);
    b.task_name = st.Text(1);
    b.run_id = st.Int(2);
    b.candidate_id = st.Int(3);
    b.seq = static_cast<int>(st.Int(4));
    b.evaluation_id = st.Int(5);
    b.speedup = st.Real(6);
    out.push_back(std::move(b));
  }
  return out;
}

Result<std::map<std::string, int>> Store::StatusCounts(int64_t run_id) {
  std::lock_guard lock(mu_);
  HONE_ASSIGN_OR_RETURN(
      Stmt st,
      db_.Prepare("SELECT CASE WHEN state = 'finished' THEN status ELSE 'pending' END AS s, "
                  "count(*) FROM evaluations WHERE run_id = ? GROUP BY s"));
  st.Bind(1, run_id);
  std::map<std::string, int> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out[st.Text(0)] = static_cast<int>(st.Int(1));
  }
  return out;
}

}  // namespace hone
