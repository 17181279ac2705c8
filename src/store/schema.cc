#include "store/schema.h"

#include <string>

#include "store/row_reader.h"

namespace hone {
namespace {

// Version 1: the tables.
constexpr std::string_view kV1 = R"sql(
CREATE TABLE runs(
  id           INTEGER PRIMARY KEY,
  kind         TEXT NOT NULL CHECK (kind IN ('optimize', 'bench')),
  name         TEXT NOT NULL DEFAULT '',
  created      TEXT NOT NULL,
  updated      TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
  hone_version TEXT NOT NULL,
  config       TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE tasks(
  hash       TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  path       TEXT NOT NULL DEFAULT '',
  definition TEXT NOT NULL DEFAULT ''
);
CREATE TABLE baselines(
  id              INTEGER PRIMARY KEY,
  task_hash       TEXT NOT NULL REFERENCES tasks(hash),
  device          TEXT NOT NULL,
  torch_version   TEXT NOT NULL,
  case_name       TEXT NOT NULL DEFAULT '',
  eager_seconds   REAL,
  compile_seconds REAL,
  samples         TEXT NOT NULL DEFAULT '{}',
  created         TEXT NOT NULL,
  UNIQUE (task_hash, device, torch_version, case_name)
);
CREATE TABLE candidates(
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  task_hash   TEXT NOT NULL REFERENCES tasks(hash),
  seq         INTEGER NOT NULL,
  kind        TEXT NOT NULL DEFAULT '',
  lineage     INTEGER NOT NULL DEFAULT 0,
  turn        INTEGER NOT NULL DEFAULT 0,
  parents     TEXT NOT NULL DEFAULT '[]',
  backend     TEXT NOT NULL DEFAULT 'cpu',
  source      TEXT,
  source_hash TEXT,
  prompt      TEXT NOT NULL DEFAULT '{}',
  reply       TEXT NOT NULL DEFAULT '',
  extraction  TEXT NOT NULL DEFAULT '{}',
  created     TEXT NOT NULL,
  UNIQUE (run_id, seq)
);
CREATE TABLE builds(
  id           INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  ok           INTEGER NOT NULL,
  cached       INTEGER NOT NULL,
  seconds      REAL NOT NULL,
  log          TEXT NOT NULL DEFAULT '',
  resources    TEXT NOT NULL DEFAULT '',
  created      TEXT NOT NULL
);
CREATE TABLE evaluations(
  id              INTEGER PRIMARY KEY,
  run_id          INTEGER NOT NULL REFERENCES runs(id),
  work_key        TEXT NOT NULL,
  task_hash       TEXT NOT NULL REFERENCES tasks(hash),
  candidate_id    INTEGER REFERENCES candidates(id),
  state           TEXT NOT NULL CHECK (state IN ('started', 'finished')),
  tries           INTEGER NOT NULL DEFAULT 1,
  status          TEXT,
  reason          TEXT,
  speedup         REAL,
  sol_percent     REAL,
  checks_failed   INTEGER,
  cand_median_us  REAL,
  cand_ci_low_us  REAL,
  cand_ci_high_us REAL,
  ref_median_us   REAL,
  reps            INTEGER,
  samples         TEXT,
  checks          TEXT,
  device_state    TEXT,
  verdict         TEXT,
  started         TEXT NOT NULL,
  finished        TEXT,
  UNIQUE (run_id, work_key)
);
CREATE TABLE llm_calls(
  id            INTEGER PRIMARY KEY,
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  candidate_id  INTEGER REFERENCES candidates(id),
  attempt_seq   INTEGER,
  provider      TEXT NOT NULL DEFAULT '',
  model         TEXT NOT NULL DEFAULT '',
  ok            INTEGER NOT NULL,
  error         TEXT NOT NULL DEFAULT '',
  finish_reason TEXT NOT NULL DEFAULT '',
  truncated     INTEGER NOT NULL DEFAULT 0,
  input_tokens  INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd      REAL NOT NULL DEFAULT 0,
  seconds       REAL NOT NULL DEFAULT 0,
  http_attempts INTEGER NOT NULL DEFAULT 0,
  exchanges     TEXT NOT NULL DEFAULT '[]',
  created       TEXT NOT NULL
);
)sql";

// Version 2: a run's final summary (summary.json), and the indices the
// report and resume queries use.
constexpr std::string_view kV2 = R"sql(
ALTER TABLE runs ADD COLUMN summary TEXT NOT NULL DEFAULT '{}';
CREATE INDEX candidates_by_task ON candidates(task_hash);
CREATE INDEX evaluations_by_candidate ON evaluations(candidate_id, id);
CREATE INDEX evaluations_by_state ON evaluations(run_id, state);
CREATE INDEX evaluations_by_task ON evaluations(task_hash, status, speedup);
CREATE INDEX builds_by_candidate ON builds(candidate_id);
CREATE INDEX llm_calls_by_run ON llm_calls(run_id, id);
)sql";

// Version 3: what bench metrics need. A run's task list (so a task with no
// result still counts, as failed), each candidate's label (a solution's file
// name), and the speedup over torch.compile as a column.
constexpr std::string_view kV3 = R"sql(
ALTER TABLE candidates ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE evaluations ADD COLUMN speedup_compile REAL;
CREATE TABLE run_tasks(
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  task_hash TEXT NOT NULL REFERENCES tasks(hash),
  category  TEXT NOT NULL DEFAULT '',
  position  INTEGER NOT NULL,
  PRIMARY KEY (run_id, task_hash)
);
)sql";

// Version 4: each LLM call's provenance beside its provider and model: the
// sampling settings and the prompt templates' version.
constexpr std::string_view kV4 = R"sql(
ALTER TABLE llm_calls ADD COLUMN sampling TEXT NOT NULL DEFAULT '{}';
ALTER TABLE llm_calls ADD COLUMN prompt_version TEXT NOT NULL DEFAULT '';
)sql";

// Version 5: lessons distilled from finished optimize runs (what change
// gained how much, on which kind of task), recalled for similar tasks'
// prompts (search/lesson_distil.h, search/lesson_recall.h). Nothing refers
// to a lesson, so deleting one touches nothing else.
constexpr std::string_view kV5 = R"sql(
CREATE TABLE lessons(
  id                 INTEGER PRIMARY KEY,
  run_id             INTEGER NOT NULL REFERENCES runs(id),
  task_hash          TEXT NOT NULL,
  task_name          TEXT NOT NULL DEFAULT '',
  category           TEXT NOT NULL DEFAULT '',
  backend            TEXT NOT NULL DEFAULT '',
  signature          TEXT NOT NULL DEFAULT '{}',
  candidate_id       INTEGER NOT NULL REFERENCES candidates(id),
  basis              TEXT NOT NULL CHECK (basis IN ('reference', 'parent')),
  basis_candidate_id INTEGER REFERENCES candidates(id),
  change             TEXT NOT NULL DEFAULT '',
  speedup_before     REAL NOT NULL,
  speedup_after      REAL NOT NULL,
  sol_before         REAL,
  sol_after          REAL,
  evidence           TEXT NOT NULL DEFAULT '{}',
  created            TEXT NOT NULL,
  UNIQUE (run_id, candidate_id, basis)
);
CREATE INDEX lessons_by_backend ON lessons(backend, category);
CREATE INDEX lessons_by_task ON lessons(task_name, task_hash);
)sql";

// Version 6: each attempt's kernel language (lang/language.h), so that a
// stored candidate is written back with its extension and exports say what
// it was written in. Older rows have none (their backend's native language).
constexpr std::string_view kV6 = R"sql(
ALTER TABLE candidates ADD COLUMN language TEXT NOT NULL DEFAULT '';
)sql";

}  // namespace

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> kSteps = {{1, kV1}, {2, kV2}, {3, kV3},
                                                {4, kV4}, {5, kV5}, {6, kV6}};
  return kSteps;
}

int CurrentSchemaVersion() { return Migrations().back().version; }

Status CheckStoreIdentity(Db& db) {
  const std::string& path = db.path();
  // One statement, so one snapshot: another process may create the schema
  // of a new, empty store between two reads, and an application id read
  // before it with tables read after it looked like another program's
  // database. The first read of a file that is not SQLite fails here ("file
  // is not a database").
  auto st = db.Prepare(
      "SELECT (SELECT application_id FROM pragma_application_id) AS app_id, "
      "(SELECT user_version FROM pragma_user_version) AS version, "
      "(SELECT count(*) FROM sqlite_schema) AS objects");
  struct Identity {
    int64_t app_id, version, objects;
  };
  auto read = [](const RowReader& r) {
    return Identity{r.Int("app_id"), r.Int("version"), r.Int("objects")};
  };
  using Answer = Result<std::optional<Identity>>;
  Answer answer = st.ok() ? ReadFirstRow(*st, read) : Answer(st.status());
  if (!answer.ok()) {
    if (answer.status().code() != StatusCode::kInvalidInput) return answer.status();
    return Status::Invalid("not a hone store: " + answer.status().message());
  }
  if (!*answer) return Status::Internal(path + ": no answer to the store's identity query");
  const auto [app_id, version, objects] = **answer;
  if (app_id != kHoneAppId) {
    if (app_id != 0 || version != 0 || objects != 0)
      return Status::Invalid(path + ": not a hone store (an SQLite database of another program)");
  }
  if (version > CurrentSchemaVersion())
    return Status::Invalid(path + ": written by a newer hone (store schema version " +
                           std::to_string(version) + "; this hone reads up to " +
                           std::to_string(CurrentSchemaVersion()) + "); upgrade hone");
  return Status::Ok();
}

Status MigrateToCurrent(Db& db) {
  HONE_RETURN_IF_ERROR(CheckStoreIdentity(db));
  HONE_ASSIGN_OR_RETURN(int64_t version, db.QueryInt("PRAGMA user_version"));
  for (const Migration& m : Migrations()) {
    if (m.version <= version) continue;
    Transaction tx(db);
    HONE_RETURN_IF_ERROR(tx.Begin());
    // Another process may have migrated while we waited for the lock.
    HONE_ASSIGN_OR_RETURN(int64_t now, db.QueryInt("PRAGMA user_version"));
    if (now >= m.version) continue;
    HONE_RETURN_IF_ERROR(db.Exec(m.sql).With("migrating to store schema version " +
                                             std::to_string(m.version) + ": "));
    HONE_RETURN_IF_ERROR(db.Exec("PRAGMA application_id = " + std::to_string(kHoneAppId)));
    HONE_RETURN_IF_ERROR(db.Exec("PRAGMA user_version = " + std::to_string(m.version)));
    HONE_RETURN_IF_ERROR(tx.Commit());
  }
  return Status::Ok();
}

}  // namespace hone
