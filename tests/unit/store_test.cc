#include "store/store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/fs.h"
#include "core/interrupt_cleanup.h"
#include "core/json_text.h"
#include "store/import.h"
#include "store/schema.h"
#include "verify/verdict_json.h"

namespace hone {
namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = MakeTempDir(std::filesystem::temp_directory_path(), "hone-store-test");
    ASSERT_TRUE(d.ok()) << d.status().message();
    dir_ = *d;
    path_ = dir_ / "runs.db";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::unique_ptr<Store> OpenOrDie() {
    auto s = Store::Open(path_);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  // A raw connection, as another process (a report) would have.
  sqlite3* Raw() {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
  }
  static int64_t Count(sqlite3* db, const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    int64_t n = -1;
    if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
  }
  static void Exec(sqlite3* db, const std::string& sql) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  }

  std::filesystem::path dir_, path_;
};

Verdict PassedVerdict(double speedup) {
  Verdict v;
  v.status = VerdictStatus::kPassed;
  v.reason = "all checks passed";
  v.task = "vector_add";
  v.build.seconds = 1.5;
  v.build.log = "ok";
  v.build.resources = "regs=32";
  v.checks = {{{CheckKind::kCorrect}, "N=4096 seed=1", true, ""},
              {{CheckKind::kInputsUnchanged}, "", true, ""}};
  TimingResult cand;
  cand.samples = {1e-6, 2e-6, 3e-6};
  cand.summary = Summarize(cand.samples);
  TimingResult ref;
  ref.samples = {4e-6, 5e-6, 6e-6};
  ref.summary = Summarize(ref.samples);
  v.timing.candidate_time = cand;
  v.timing.reference_time = ref;
  v.timing.speedup = speedup;
  v.timing.sol_percent = 42;
  return v;
}

Verdict FailedVerdict(VerdictStatus status, const std::string& reason) {
  Verdict v;
  v.status = status;
  v.reason = reason;
  v.task = "vector_add";
  v.checks = {{{CheckKind::kCorrect}, "N=7", false, "max error 3"}};
  return v;
}

struct Fixture {
  int64_t run = 0;
  std::string task = "taskhash1";
};

Fixture MakeRun(Store& s) {
  Fixture f;
  EXPECT_TRUE(s.PutTask({f.task, "vector_add", "tasks/vector_add", "definition"}).ok());
  auto run = s.CreateRun("optimize", R"({"strategy":"refine"})");
  EXPECT_TRUE(run.ok()) << run.status().message();
  f.run = run.ok() ? *run : 0;
  return f;
}

CandidateRow Candidate(const Fixture& f, int seq, const std::string& source) {
  CandidateRow c;
  c.run_id = f.run;
  c.task_hash = f.task;
  c.seq = seq;
  c.kind = "refine";
  c.parents = {seq - 1};
  c.source = source;
  c.prompt = R"({"system":"be fast","messages":[]})";
  c.reply = "```cpp\n" + source + "\n```";
  c.extraction = R"({"failure":"none","detail":""})";
  return c;
}

TEST_F(StoreTest, OpenCreatesAndReopenKeepsData) {
  int64_t run = 0;
  {
    auto s = OpenOrDie();
    ASSERT_TRUE(s);
    EXPECT_EQ(s->schema_version(), CurrentSchemaVersion());
    auto r = s->CreateRun("bench", "{}", "nightly");
    ASSERT_TRUE(r.ok());
    run = *r;
    EXPECT_FALSE(s->CreateRun("train", "{}").ok());
  }
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  auto runs = s->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].id, run);
  EXPECT_EQ((*runs)[0].kind, "bench");
  EXPECT_EQ((*runs)[0].name, "nightly");
  EXPECT_EQ((*runs)[0].status, "running");
  EXPECT_EQ((*runs)[0].hone_version, HONE_VERSION);
  ASSERT_TRUE(s->SetRunStatus(run, "finished", R"({"best":1})").ok());
  EXPECT_EQ(s->GetRun(run)->summary, R"({"best":1})");
  EXPECT_EQ(s->GetRun(run)->status, "finished");
  EXPECT_EQ(s->SetRunStatus(run + 7, "failed").code(), StatusCode::kNotFound);
  sqlite3* raw = Raw();
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

TEST_F(StoreTest, MigratesAVersion1File) {
  {
    sqlite3* raw = Raw();
    ASSERT_EQ(Migrations()[0].version, 1);
    Exec(raw, "BEGIN; " + std::string(Migrations()[0].sql) + "PRAGMA application_id = " +
                  std::to_string(kHoneAppId) + "; PRAGMA user_version = 1; COMMIT;");
    Exec(raw,
         "INSERT INTO runs(kind, created, updated, status, hone_version, config) "
         "VALUES ('optimize', '2024-01-01', '2024-01-01', 'finished', '0.0.1', '{\"a\":1}')");
    sqlite3_close(raw);
  }
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->schema_version(), CurrentSchemaVersion());
  auto runs = s->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].config, R"({"a":1})");
  EXPECT_EQ((*runs)[0].summary, "{}");  // the column version 2 added
  sqlite3* raw = Raw();
  EXPECT_EQ(Count(raw, "SELECT count(*) FROM sqlite_schema WHERE name = 'evaluations_by_state'"),
            1);
  sqlite3_close(raw);
}

// A version-3 store (before LLM calls carried their sampling settings and
// prompt version) keeps its calls, which read back with empty provenance.
TEST_F(StoreTest, MigratesAVersion3FileKeepingItsLlmCalls) {
  {
    sqlite3* raw = Raw();
    std::string sql = "BEGIN; ";
    for (const Migration& m : Migrations())
      if (m.version <= 3) sql += std::string(m.sql);
    Exec(raw, sql + "PRAGMA application_id = " + std::to_string(kHoneAppId) +
                  "; PRAGMA user_version = 3; COMMIT;");
    Exec(raw,
         "INSERT INTO runs(kind, created, updated, status, hone_version) "
         "VALUES ('optimize', '2024-01-01', '2024-01-01', 'finished', '0.0.1')");
    Exec(raw,
         "INSERT INTO llm_calls(run_id, provider, model, ok, created) "
         "VALUES (1, 'openai', 'gpt-4.1', 1, '2024-01-01')");
    sqlite3_close(raw);
  }
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->schema_version(), CurrentSchemaVersion());
  auto calls = s->LlmCalls(1);
  ASSERT_TRUE(calls.ok()) << calls.status().message();
  ASSERT_EQ(calls->size(), 1u);
  EXPECT_EQ((*calls)[0].model, "gpt-4.1");
  EXPECT_EQ((*calls)[0].sampling, "{}");
  EXPECT_EQ((*calls)[0].prompt_version, "");
}

// A version-4 store (before lessons) keeps every row it had, and gains an
// empty lessons table that takes lessons about its runs.
TEST_F(StoreTest, MigratesAVersion4FileKeepingItsDataAndAddsLessons) {
  {
    sqlite3* raw = Raw();
    std::string sql = "BEGIN; ";
    for (const Migration& m : Migrations())
      if (m.version <= 4) sql += std::string(m.sql);
    Exec(raw, sql + "PRAGMA application_id = " + std::to_string(kHoneAppId) +
                  "; PRAGMA user_version = 4; COMMIT;");
    Exec(raw,
         "INSERT INTO runs(kind, created, updated, status, hone_version, config) "
         "VALUES ('optimize', '2024-01-01', '2024-01-01', 'finished', '0.0.1', '{\"k\":2}')");
    Exec(raw, "INSERT INTO tasks(hash, name) VALUES ('h1', 'vector_add')");
    Exec(raw,
         "INSERT INTO candidates(run_id, task_hash, seq, source, created) "
         "VALUES (1, 'h1', 0, 'int x;', '2024-01-01')");
    Exec(raw,
         "INSERT INTO evaluations(run_id, work_key, task_hash, candidate_id, state, status, "
         "speedup, started) VALUES (1, 'k', 'h1', 1, 'finished', 'passed', 2.5, '2024-01-01')");
    Exec(raw,
         "INSERT INTO llm_calls(run_id, candidate_id, provider, model, ok, created, "
         "prompt_version) VALUES (1, 1, 'openai', 'gpt-4.1', 1, '2024-01-01', 'v4hash')");
    sqlite3_close(raw);
  }
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->schema_version(), CurrentSchemaVersion());
  EXPECT_EQ(s->GetRun(1)->config, R"({"k":2})");
  auto rows = s->RunCandidates(1);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(*(*rows)[0].candidate.source, "int x;");
  ASSERT_TRUE((*rows)[0].evaluation);
  EXPECT_DOUBLE_EQ(*(*rows)[0].evaluation->speedup, 2.5);
  EXPECT_EQ((*s->LlmCalls(1))[0].prompt_version, "v4hash");
  EXPECT_TRUE(s->Lessons()->empty());
  LessonRow l;
  l.run_id = 1;
  l.task_hash = "h1";
  l.task_name = "vector_add";
  l.candidate_id = 1;
  l.speedup_after = 2.5;
  EXPECT_EQ(*s->AddLessons({l}), 1);
  EXPECT_EQ(s->Lessons()->size(), 1u);
}

TEST_F(StoreTest, StoresListsAndDeletesLessons) {
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  Fixture f = MakeRun(*s);
  auto c0 = s->AddCandidate(Candidate(f, 0, "int a;"));
  auto c1 = s->AddCandidate(Candidate(f, 1, "int b;"));
  ASSERT_TRUE(c0.ok() && c1.ok());
  LessonRow ref;
  ref.run_id = f.run;
  ref.task_hash = f.task;
  ref.task_name = "vector_add";
  ref.category = "elementwise";
  ref.backend = "cpu";
  ref.signature = R"({"category":"elementwise"})";
  ref.candidate_id = *c1;
  ref.basis = "reference";
  ref.change = "adds OpenMP threads";
  ref.speedup_before = 1;
  ref.speedup_after = 3;
  ref.sol_before = 10;
  ref.sol_after = 30;
  ref.evidence = R"({"seq":1})";
  LessonRow step = ref;
  step.basis = "parent";
  step.basis_candidate_id = *c0;
  step.speedup_before = 0.5;
  step.sol_before.reset();
  LessonRow other = ref;
  other.task_hash = "otherhash";
  other.task_name = "gelu";
  other.backend = "cuda";
  other.candidate_id = *c0;
  EXPECT_EQ(*s->AddLessons({ref, step}), 2);
  EXPECT_EQ(*s->AddLessons({ref, step, other}), 1) << "a lesson is stored once";

  auto all = s->Lessons();
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 3u);
  const LessonRow& got = (*all)[1];
  EXPECT_GT(got.id, (*all)[0].id);
  EXPECT_EQ(got.basis, "parent");
  EXPECT_EQ(got.basis_candidate_id, *c0);
  EXPECT_EQ(got.candidate_id, *c1);
  EXPECT_DOUBLE_EQ(got.speedup_before, 0.5);
  EXPECT_FALSE(got.sol_before);
  EXPECT_DOUBLE_EQ(*got.sol_after, 30);
  EXPECT_EQ(got.change, "adds OpenMP threads");
  EXPECT_EQ(got.evidence, R"({"seq":1})");
  EXPECT_FALSE(got.created.empty());
  EXPECT_EQ(s->Lessons("vector_add")->size(), 2u);
  EXPECT_EQ(s->Lessons("otherhas")->size(), 1u) << "a hash prefix";
  EXPECT_TRUE(s->Lessons("other")->empty()) << "too short for a hash prefix";
  EXPECT_TRUE(s->Lessons("nosuch")->empty());
  EXPECT_EQ(s->LessonsFor("cpu")->size(), 2u);
  EXPECT_EQ(s->LessonsFor("cuda")->size(), 1u);

  // All or nothing: an id that is not stored deletes none.
  int64_t first = (*all)[0].id, last = (*all)[2].id;
  Status missing = s->DeleteLessons({first, last + 100});
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("no lesson " + std::to_string(last + 100)), std::string::npos);
  EXPECT_EQ(s->Lessons()->size(), 3u);
  ASSERT_TRUE(s->DeleteLessons({first, last}).ok());
  auto left = s->Lessons();
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].basis, "parent");
  EXPECT_EQ(s->GetRun(f.run)->id, f.run) << "the run is untouched";
}

TEST_F(StoreTest, RefusesAStoreFromANewerHone) {
  { ASSERT_TRUE(OpenOrDie()); }
  sqlite3* raw = Raw();
  Exec(raw, "PRAGMA user_version = 999");
  sqlite3_close(raw);
  auto s = Store::Open(path_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.status().message().find(path_.string()), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("newer hone"), std::string::npos) << s.status().message();
}

// Processes that open one new store at once (a test polling a store that
// a hone command is creating, workers started together) all get it: one
// creates the schema, and none takes the others' half-made store for
// another program's database.
TEST_F(StoreTest, ANewStoreOpenedByManyAtOnceIsOneStore) {
  for (int round = 0; round < 30; ++round) {
    const auto path = dir_ / ("many-" + std::to_string(round) + ".db");
    constexpr int kOpeners = 6;
    std::atomic<int> ready{0};
    std::vector<Status> got(kOpeners, Status::Ok());
    std::vector<std::thread> openers;
    for (int i = 0; i < kOpeners; ++i)
      openers.emplace_back([&, i] {
        ready.fetch_add(1);
        while (ready.load() < kOpeners) std::this_thread::yield();
        auto s = Store::Open(path);
        if (!s.ok()) got[static_cast<size_t>(i)] = s.status();
      });
    for (auto& t : openers) t.join();
    for (const Status& s : got) ASSERT_TRUE(s.ok()) << "round " << round << ": " << s.message();
  }
}

TEST_F(StoreTest, RefusesFilesThatAreNotStores) {
  auto text = dir_ / "notes.txt";
  ASSERT_TRUE(WriteFileAtomic(text, std::string(4096, 'x')).ok());
  auto s = Store::Open(text);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(text.string()), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("not a hone store"), std::string::npos)
      << s.status().message();
  EXPECT_EQ(*ReadFile(text), std::string(4096, 'x'));  // untouched

  sqlite3* other = Raw();  // another program's database at path_
  Exec(other, "CREATE TABLE contacts(name TEXT)");
  sqlite3_close(other);
  s = Store::Open(path_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("not a hone store"), std::string::npos)
      << s.status().message();

  auto under_file = text / "runs.db";  // a path that cannot exist
  s = Store::Open(under_file);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(under_file.string()), std::string::npos)
      << s.status().message();
}

TEST_F(StoreTest, RoundTripsCandidateBuildEvaluationAndLlmCall) {
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  Fixture f = MakeRun(*s);
  LlmCallRow call;
  call.provider = "openai";
  call.model = "gpt-x";
  call.ok = true;
  call.input_tokens = 1200;
  call.output_tokens = 800;
  call.cost_usd = 0.0123;
  call.seconds = 3.5;
  call.http_attempts = 2;
  call.exchanges = R"([{"status":429},{"status":200}])";
  auto c1 = s->AddCandidate(Candidate(f, 1, "int a;"), &call);
  ASSERT_TRUE(c1.ok()) << c1.status().message();
  auto again = s->AddCandidate(Candidate(f, 1, "int changed;"));  // idempotent on (run, seq)
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *c1);
  auto c2 = s->AddCandidate(Candidate(f, 2, "int b;"));
  ASSERT_TRUE(c2.ok());
  ASSERT_TRUE(s->AddBuild({0, *c2, false, false, 0.7, "error: b", "", ""}).ok());

  std::string k1 = WorkKey(f.task, SourceHash("int a;"), "opts");
  std::string k2 = WorkKey(f.task, SourceHash("int b;"), "opts");
  EXPECT_NE(k1, k2);
  bool done = true;
  auto e1 = s->BeginEvaluation(f.run, k1, f.task, *c1, &done);
  ASSERT_TRUE(e1.ok()) << e1.status().message();
  EXPECT_FALSE(done);
  ASSERT_TRUE(s->FinishEvaluation(*e1, PassedVerdict(2.5)).ok());
  EXPECT_FALSE(s->FinishEvaluation(*e1, PassedVerdict(3)).ok());  // finished once only
  auto e2 = s->BeginEvaluation(f.run, k2, f.task, *c2);
  ASSERT_TRUE(e2.ok());
  ASSERT_TRUE(s->FinishEvaluation(*e2, FailedVerdict(VerdictStatus::kCompileError, "no")).ok());

  auto ev = s->GetEvaluation(*e1);
  ASSERT_TRUE(ev.ok());
  EXPECT_EQ(ev->state, "finished");
  EXPECT_EQ(ev->status, "passed");
  EXPECT_EQ(ev->speedup, 2.5);
  EXPECT_EQ(ev->sol_percent, 42);
  EXPECT_EQ(ev->reps, 3);
  EXPECT_NEAR(*ev->cand_median_us, 2.0, 1e-9);
  EXPECT_NEAR(*ev->ref_median_us, 5.0, 1e-9);
  auto samples = nlohmann::json::parse(ev->samples);
  EXPECT_EQ(samples["candidate_us"].size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(ev->checks).size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(ev->verdict)["reason"], "all checks passed");
  EXPECT_EQ(ev->tries, 1);

  auto builds = s->Builds(*c1);  // from the verdict
  ASSERT_TRUE(builds.ok());
  ASSERT_EQ(builds->size(), 1u);
  EXPECT_EQ((*builds)[0].seconds, 1.5);
  EXPECT_EQ((*builds)[0].resources, "regs=32");
  auto builds2 = s->Builds(*c2);  // AddBuild's, then the verdict's
  ASSERT_EQ(builds2->size(), 2u);
  EXPECT_FALSE((*builds2)[0].ok);
  EXPECT_EQ((*builds2)[0].log, "error: b");

  auto calls = s->LlmCalls(f.run);
  ASSERT_TRUE(calls.ok());
  ASSERT_EQ(calls->size(), 1u);
  EXPECT_EQ((*calls)[0].candidate_id, *c1);
  EXPECT_EQ((*calls)[0].attempt_seq, 1);
  EXPECT_EQ((*calls)[0].input_tokens, 1200);
  EXPECT_EQ((*calls)[0].cost_usd, 0.0123);
  EXPECT_EQ((*calls)[0].exchanges, call.exchanges);

  auto cands = s->RunCandidates(f.run);
  ASSERT_TRUE(cands.ok());
  ASSERT_EQ(cands->size(), 2u);
  EXPECT_EQ((*cands)[0].candidate.source, "int a;");
  EXPECT_EQ((*cands)[0].candidate.source_hash, SourceHash("int a;"));
  EXPECT_EQ((*cands)[0].candidate.parents, std::vector<int>{0});
  ASSERT_TRUE((*cands)[0].evaluation);
  EXPECT_EQ((*cands)[0].evaluation->status, "passed");
  EXPECT_EQ((*cands)[1].evaluation->status, "compile_error");
  EXPECT_EQ((*cands)[1].evaluation->checks_failed, 1);

  auto attempts = s->Attempts(f.run);
  ASSERT_EQ(attempts->size(), 2u);
  EXPECT_EQ((*attempts)[1].seq, 2);

  auto best = s->BestPerTask(f.run);
  ASSERT_TRUE(best.ok()) << best.status().message();
  ASSERT_EQ(best->size(), 1u);
  EXPECT_EQ((*best)[0].candidate_id, *c1);
  EXPECT_EQ((*best)[0].task_name, "vector_add");
  EXPECT_EQ((*best)[0].speedup, 2.5);
  EXPECT_EQ(s->BestPerTask()->size(), 1u);

  auto counts = s->StatusCounts(f.run);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ((*counts)["passed"], 1);
  EXPECT_EQ((*counts)["compile_error"], 1);
  EXPECT_EQ(counts->count("pending"), 0u);

  BaselineRow b;
  b.task_hash = f.task;
  b.device = "NVIDIA H100";
  b.torch_version = "2.4.0";
  b.eager_seconds = 1e-3;
  ASSERT_TRUE(s->PutBaseline(b).ok());
  b.compile_seconds = 5e-4;
  ASSERT_TRUE(s->PutBaseline(b).ok());  // replaces
  auto got = s->GetBaseline(f.task, "NVIDIA H100", "2.4.0");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->compile_seconds, 5e-4);
  EXPECT_FALSE(s->GetBaseline(f.task, "NVIDIA H100", "native")->has_value());
  EXPECT_EQ((*s->GetTask(f.task))->name, "vector_add");
}

// Text from compilers, candidates and models need not be UTF-8 (a Latin-1
// comment gcc quotes, a reply's stray bytes); the store keeps it as valid
// UTF-8, each invalid byte a U+FFFD, so that every reader gets text.
TEST_F(StoreTest, TextThatIsNotUtf8ComesBackAsValidUtf8AndSourceAsItsBytes) {
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  Fixture f = MakeRun(*s);
  const std::string latin1 = "caf\xe9 na\xefve \xff";  // Latin-1 bytes, not UTF-8
  const std::string valid = "caf\xef\xbf\xbd na\xef\xbf\xbdve \xef\xbf\xbd";
  EXPECT_EQ(ValidUtf8(latin1), valid);
  LlmCallRow call;
  call.provider = "openai";
  call.model = "gpt-x";
  call.error = "HTTP 500: " + latin1;
  CandidateRow candidate = Candidate(f, 1, "// " + latin1 + "\nint a;");
  candidate.reply = latin1;
  auto c = s->AddCandidate(candidate, &call);
  ASSERT_TRUE(c.ok()) << c.status().message();
  BuildRow build;
  build.candidate_id = *c;
  build.ok = false;
  build.log = "error: " + latin1;
  ASSERT_TRUE(s->AddBuild(build).ok());
  auto e = s->BeginEvaluation(f.run, "key", f.task, *c);
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_TRUE(s->FinishEvaluation(*e, FailedVerdict(VerdictStatus::kCompileError, latin1)).ok());

  auto ev = s->GetEvaluation(*e);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  EXPECT_EQ(ev->reason, valid);
  auto builds = s->Builds(*c);
  ASSERT_TRUE(builds.ok());
  ASSERT_FALSE(builds->empty());
  EXPECT_EQ((*builds)[0].log, "error: " + valid);
  auto calls = s->LlmCalls(f.run);
  ASSERT_TRUE(calls.ok());
  ASSERT_EQ(calls->size(), 1u);
  EXPECT_EQ((*calls)[0].error, "HTTP 500: " + valid);
  // The candidate's source is kept byte for byte (it is evaluated again from
  // the store, and its hash is of its bytes): a BLOB where it is not UTF-8.
  auto attempts = s->Attempts(f.run);
  ASSERT_TRUE(attempts.ok()) << attempts.status().message();
  ASSERT_EQ(attempts->size(), 1u);
  ASSERT_TRUE((*attempts)[0].source.has_value());
  EXPECT_EQ(*(*attempts)[0].source, "// " + latin1 + "\nint a;");
  // Every other text column, read by another connection as any reader would.
  sqlite3* db = Raw();
  {
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT typeof(source) FROM candidates", -1, &st, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "blob");
    sqlite3_finalize(st);
  }
  for (const char* sql : {"SELECT reply FROM candidates", "SELECT reason FROM evaluations",
                          "SELECT log FROM builds", "SELECT error FROM llm_calls"}) {
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    while (sqlite3_step(st) == SQLITE_ROW) {
      const char* text = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      std::string value = text ? text : "";
      EXPECT_EQ(ValidUtf8(value), value) << sql;
      EXPECT_EQ(value.find('\xe9'), std::string::npos) << sql;
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
}

// Once Ctrl-C is ending hone through the interrupt cleanup, an evaluation
// still running has lost its files and its sandbox to the same signal: what
// it concludes is not stored, and the unit stays pending for --resume.
TEST_F(StoreTest, NoVerdictIsStoredOnceAnInterruptIsEndingTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto s = Store::Open(path_);
        if (!s.ok()) std::_Exit(2);
        Fixture f = MakeRun(**s);
        auto c = (*s)->AddCandidate(Candidate(f, 0, "int a;"));
        auto e = c.ok() ? (*s)->BeginEvaluation(f.run, "key", f.task, *c) : c.status();
        if (!e.ok()) std::_Exit(3);
        MarkInterruptEndingForTesting();
        Status finished =
            (*s)->FinishEvaluation(*e, FailedVerdict(VerdictStatus::kRuntimeError, "killed"));
        auto pending = (*s)->PendingWork(f.run);
        std::_Exit(!finished.ok() && pending.ok() && pending->size() == 1 ? 0 : 4);
      },
      ::testing::ExitedWithCode(0), "");
}

// A resumed search reads its verdicts back from the store and must make the
// choices the live run made (search/run_journal.h): the live run's strategy
// is given VerdictAsStored, which must be exactly what comes back, even for
// times that the microsecond round trip does not return unchanged.
TEST_F(StoreTest, AVerdictAsStoredIsExactlyWhatIsReadBack) {
  auto s = OpenOrDie();
  ASSERT_NE(s, nullptr);
  Fixture f = MakeRun(*s);
  auto c = s->AddCandidate(Candidate(f, 0, "int a;"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  Verdict live = PassedVerdict(0.09);
  live.timing.candidate_time->summary.median = 57015e-9;  // 57.015 us: (x * 1e6) * 1e-6 != x
  live.timing.candidate_time->summary.ci_high = 57465e-9;
  auto e = s->BeginEvaluation(f.run, WorkKey(f.task, SourceHash("int a;"), "o"), f.task, *c);
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_TRUE(s->FinishEvaluation(*e, live).ok());
  auto row = s->GetEvaluation(*e);
  ASSERT_TRUE(row.ok()) << row.status().message();
  auto back = VerdictFromJson(nlohmann::json::parse(row->verdict));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_NE(back->timing.candidate_time->summary.median, live.timing.candidate_time->summary.median)
      << "the premise: the store does not return every time unchanged";

  auto as_stored = VerdictAsStored(live);
  ASSERT_TRUE(as_stored.ok()) << as_stored.status().message();
  EXPECT_EQ(as_stored->timing.candidate_time->summary.median,
            back->timing.candidate_time->summary.median);
  EXPECT_EQ(as_stored->timing.candidate_time->summary.ci_high,
            back->timing.candidate_time->summary.ci_high);
  EXPECT_EQ(VerdictToJson(*as_stored).dump(), VerdictToJson(*back).dump());
}

TEST_F(StoreTest, PendingWorkSurvivesACrash) {
  Fixture f;
  int64_t e1 = 0, e2 = 0;
  std::string k1 = WorkKey("t", "s1", "o"), k2 = WorkKey("t", "s2", "o");
  {
    auto s = OpenOrDie();
    ASSERT_TRUE(s);
    f = MakeRun(*s);
    e1 = *s->BeginEvaluation(f.run, k1, f.task, std::nullopt);
    ASSERT_TRUE(s->FinishEvaluation(e1, PassedVerdict(1.2)).ok());
    e2 = *s->BeginEvaluation(f.run, k2, f.task, std::nullopt);
    // Closed here without finishing e2, as a killed run would leave it.
  }
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  auto pending = s->PendingWork(f.run);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].id, e2);
  EXPECT_EQ((*pending)[0].work_key, k2);
  EXPECT_TRUE(*s->HasResult(f.run, k1));
  EXPECT_FALSE(*s->HasResult(f.run, k2));
  EXPECT_EQ(s->StatusCounts(f.run).value()["pending"], 1);

  bool done = false;
  EXPECT_EQ(*s->BeginEvaluation(f.run, k1, f.task, std::nullopt, &done), e1);
  EXPECT_TRUE(done);  // finished: not evaluated again
  EXPECT_EQ(*s->BeginEvaluation(f.run, k2, f.task, std::nullopt, &done), e2);
  EXPECT_FALSE(done);  // redone
  EXPECT_EQ(s->GetEvaluation(e2)->tries, 2);
  ASSERT_TRUE(s->FinishEvaluation(e2, PassedVerdict(1.1)).ok());
  EXPECT_TRUE(s->PendingWork(f.run)->empty());
}

TEST_F(StoreTest, ReaderSeesLastCommittedStateWhileAWriterWrites) {
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->CreateRun("optimize", "{}").ok());
  sqlite3* writer = Raw();
  Exec(writer, "BEGIN IMMEDIATE");
  Exec(writer,
       "INSERT INTO runs(kind, created, updated, status, hone_version) VALUES "
       "('bench', 'x', 'x', 'running', 'y')");
  // The writer holds the write lock; a reader neither waits nor sees it.
  auto t0 = std::chrono::steady_clock::now();
  auto reader = OpenOrDie();
  ASSERT_TRUE(reader);
  auto runs = reader->ListRuns();
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  EXPECT_EQ(runs->size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  Exec(writer, "COMMIT");
  sqlite3_close(writer);
  EXPECT_EQ(reader->ListRuns()->size(), 2u);

  // Two Stores, a writing thread and a reading one, on the same file.
  Fixture f = MakeRun(*s);
  std::thread w([&] {
    for (int i = 0; i < 50; ++i) {
      auto e = s->BeginEvaluation(f.run, WorkKey("t", std::to_string(i), ""), f.task, std::nullopt);
      ASSERT_TRUE(e.ok()) << e.status().message();
      ASSERT_TRUE(s->FinishEvaluation(*e, PassedVerdict(1 + i)).ok());
    }
  });
  int last = 0;
  for (int i = 0; i < 50; ++i) {
    auto counts = reader->StatusCounts(f.run);
    ASSERT_TRUE(counts.ok()) << counts.status().message();
    int n = (*counts)["passed"];
    EXPECT_GE(n, last);  // monotone: only committed states
    last = n;
  }
  w.join();
  EXPECT_EQ(reader->StatusCounts(f.run).value()["passed"], 50);
}

TEST_F(StoreTest, SigkillMidTransactionKeepsCommittedRows) {
  int64_t run = 0;
  {
    auto s = OpenOrDie();
    ASSERT_TRUE(s);
    run = MakeRun(*s).run;
  }  // no Store open in the parent across fork
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    auto s = Store::Open(path_);
    if (!s.ok()) _exit(2);
    for (int i = 0; i < 5; ++i) {
      CandidateRow c;
      c.run_id = run;
      c.task_hash = "taskhash1";
      c.seq = i;
      c.source = "committed " + std::to_string(i);
      if (!(*s)->AddCandidate(c).ok()) _exit(3);
    }
    // A large write transaction that never commits.
    sqlite3* db = nullptr;
    sqlite3_open(path_.c_str(), &db);
    sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    std::string big(4000, 'y');
    for (int i = 100; i < 2100; ++i) {
      std::string sql = "INSERT INTO candidates(run_id, task_hash, seq, source, created) VALUES (" +
                        std::to_string(run) + ", 'taskhash1', " + std::to_string(i) + ", '" + big +
                        "', 'x')";
      sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    }
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(4);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(wstatus));

  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  auto attempts = s->Attempts(run);
  ASSERT_TRUE(attempts.ok()) << attempts.status().message();
  ASSERT_EQ(attempts->size(), 5u);
  EXPECT_EQ((*attempts)[4].source, "committed 4");
  sqlite3* raw = Raw();
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA integrity_check", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

// An imported verdict: its columns come from the verdict reader, its JSON is
// kept whole (keys hone does not know included), and without a "build"
// object it records no build.
TEST_F(StoreTest, FinishesAVerdictFromItsJson) {
  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  Fixture f = MakeRun(*s);
  auto c = s->AddCandidate(Candidate(f, 1, "int a;"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  nlohmann::json v = {
      {"status", "passed"},
      {"reason", "all checks passed"},
      {"checks",
       {{{"name", "correct"}, {"passed", true}}, {{"name", "deterministic"}, {"passed", false}}}},
      {"timing",
       {{"speedup", 2.5},
        {"candidate", {{"median_us", 4.0}, {"samples_us", {4.0, nullptr}}, {"reps", 2}}},
        {"device_state", {{"samples", 3}, {"throttle", "hw_slowdown"}}}}},
      {"from_the_future", {{"kept", true}}}};
  auto e = s->BeginEvaluation(f.run, "k", f.task, *c);
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE(s->FinishEvaluationJson(*e, v.dump()).ok());
  auto ev = s->GetEvaluation(*e);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  EXPECT_EQ(nlohmann::json::parse(ev->verdict), v);
  EXPECT_EQ(ev->speedup, 2.5);
  EXPECT_EQ(ev->checks_failed, 1);
  EXPECT_EQ(ev->cand_median_us, 4.0);
  EXPECT_FALSE(ev->cand_ci_low_us) << "no interval was measured";
  EXPECT_FALSE(ev->ref_median_us);
  EXPECT_FALSE(ev->speedup_compile);
  EXPECT_EQ(ev->reps, 2);
  auto samples = nlohmann::json::parse(ev->samples);
  ASSERT_EQ(samples["candidate_us"].size(), 2u);
  EXPECT_TRUE(samples["candidate_us"][1].is_null());
  auto checks = nlohmann::json::parse(ev->checks);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[1]["name"], "deterministic");
  EXPECT_EQ(nlohmann::json::parse(ev->device_state)["throttle"], "hw_slowdown");
  EXPECT_TRUE(s->Builds(*c)->empty());

  auto e2 = s->BeginEvaluation(f.run, "k2", f.task, *c);
  ASSERT_TRUE(e2.ok());
  EXPECT_FALSE(s->FinishEvaluationJson(*e2, R"({"status":"splendid"})").ok());
  EXPECT_FALSE(s->FinishEvaluationJson(*e2, "[]").ok());
}

TEST_F(StoreTest, ImportsARunFolder) {
  auto run_dir = dir_ / "run-2024";
  std::filesystem::create_directories(run_dir / "candidates");
  ASSERT_TRUE(WriteFileAtomic(run_dir / "candidates" / "000000.cpp", "// zero").ok());
  ASSERT_TRUE(WriteFileAtomic(run_dir / "candidates" / "000002.cpp", "// two").ok());
  nlohmann::json prompt = {{"system", "sys"}, {"messages", {{{"role", "user"}, {"text", "go"}}}}};
  auto reply = [](bool ok, const std::string& text) {
    return nlohmann::json{{"ok", ok},
                          {"error", ok ? "" : "HTTP 500"},
                          {"text", text},
                          {"finish_reason", "stop"},
                          {"truncated", false},
                          {"input_tokens", 100},
                          {"output_tokens", 50},
                          {"cost_usd", 0.01},
                          {"attempts", 1},
                          {"seconds", 2.0},
                          {"exchanges", nlohmann::json::array()}};
  };
  std::vector<nlohmann::json> lines = {
      {{"id", 0},
       {"kind", "sample"},
       {"lineage", 0},
       {"turn", 0},
       {"parents", nlohmann::json::array()},
       {"prompt", prompt},
       {"reply", reply(true, "code 0")},
       {"extraction", {{"failure", "none"}, {"detail", ""}}},
       // Recorded with a path that no longer exists: found under candidates/.
       {"candidate", "/gone/run-2024/candidates/000000.cpp"},
       {"verdict", VerdictToJson(PassedVerdict(1.8))}},
      {{"id", 1},
       {"kind", "sample"},
       {"lineage", 1},
       {"turn", 0},
       {"parents", nlohmann::json::array()},
       {"prompt", prompt},
       {"reply", reply(false, "")}},
      {{"id", 2},
       {"kind", "refine"},
       {"lineage", 0},
       {"turn", 1},
       {"parents", {0}},
       {"prompt", prompt},
       {"reply", reply(true, "code 2")},
       {"extraction", {{"failure", "none"}, {"detail", ""}}},
       {"candidate", (run_dir / "candidates" / "000002.cpp").string()},
       {"verdict", VerdictToJson(FailedVerdict(VerdictStatus::kIncorrect, "wrong"))}},
  };
  {
    std::ofstream out(run_dir / "attempts.jsonl");
    for (const auto& l : lines) out << l.dump() << "\n";
  }
  ASSERT_TRUE(WriteFileAtomic(run_dir / "summary.json",
                              R"({"task":"vector_add","model":"openai:gpt-x","strategy":"refine"})")
                  .ok());

  auto s = OpenOrDie();
  ASSERT_TRUE(s);
  auto imported = ImportRunFolder(*s, run_dir);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ(imported->attempts, 3);
  EXPECT_EQ(imported->evaluations, 2);
  auto run = s->GetRun(imported->run_id);
  EXPECT_EQ(run->status, "finished");
  EXPECT_EQ(run->name, "run-2024");
  EXPECT_EQ(nlohmann::json::parse(run->summary)["model"], "openai:gpt-x");

  auto cands = s->RunCandidates(imported->run_id);
  ASSERT_EQ(cands->size(), 3u);
  EXPECT_EQ((*cands)[0].candidate.source, "// zero");
  EXPECT_EQ((*cands)[0].candidate.reply, "code 0");
  EXPECT_EQ(nlohmann::json::parse((*cands)[0].candidate.prompt)["system"], "sys");
  EXPECT_FALSE((*cands)[1].candidate.source);
  EXPECT_FALSE((*cands)[1].evaluation);
  EXPECT_EQ((*cands)[2].candidate.source, "// two");
  EXPECT_EQ((*cands)[2].candidate.parents, std::vector<int>{0});
  EXPECT_EQ((*cands)[2].evaluation->status, "incorrect");
  auto calls = s->LlmCalls(imported->run_id);
  ASSERT_EQ(calls->size(), 3u);
  EXPECT_FALSE((*calls)[1].ok);
  EXPECT_EQ((*calls)[1].error, "HTTP 500");
  EXPECT_EQ((*calls)[0].model, "openai:gpt-x");
  auto best = s->BestPerTask(imported->run_id);
  ASSERT_EQ(best->size(), 1u);
  EXPECT_EQ((*best)[0].seq, 0);
  EXPECT_EQ((*best)[0].task_name, "vector_add");
  EXPECT_EQ((*best)[0].speedup, 1.8);

  // A malformed line: an error naming the file and line, the run marked failed.
  {
    std::ofstream out(run_dir / "attempts.jsonl", std::ios::app);
    out << "{not json\n";
  }
  auto bad = ImportRunFolder(*s, run_dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("attempts.jsonl:4"), std::string::npos)
      << bad.status().message();
  EXPECT_EQ((*s->ListRuns())[0].status, "failed");
  EXPECT_FALSE(ImportRunFolder(*s, dir_ / "nothing").ok());
}

}  // namespace
}  // namespace hone
