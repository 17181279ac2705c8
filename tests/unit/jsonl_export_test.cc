// The JSONL export over a fabricated run: every attempt a row with the
// documented fields, and the --keep filters (passed, best per task).
#include "report/jsonl_export.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/fs.h"
#include "report/run_data.h"
#include "verify/verdict_json.h"

namespace hone {
namespace {
// Its own namespace: this file's helpers may share a name with another
// file's in the same unity unit.
namespace jsonl_export_test {

using json = nlohmann::json;

class JsonlExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-export-test");
    store_ = std::move(Store::Open(dir_ / "s.db")).value();
    run_ = *store_->CreateRun("optimize", "{}");
    for (const char* t : {"add", "mul"}) {
      ASSERT_TRUE(store_->PutTask({std::string("h-") + t, t, "", ""}).ok());
      ASSERT_TRUE(store_->AddRunTask(run_, std::string("h-") + t, "level1", 0).ok());
    }
    Add(0, "h-add", 2.0, true);
    Add(1, "h-add", 3.0, true);
    Add(2, "h-add", 0, false);
    Add(3, "h-mul", 0, false);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Add(int seq, const std::string& task, double speedup, bool passed) {
    CandidateRow c;
    c.run_id = run_;
    c.task_hash = task;
    c.seq = seq;
    c.kind = "sample";
    c.source = "int x = " + std::to_string(seq) + ";";
    c.prompt = R"({"system":"be fast","messages":[{"role":"user","text":"write it"}]})";
    c.reply = "```cpp\n" + *c.source + "\n```";
    LlmCallRow call;
    call.ok = true;
    call.model = "fake";
    call.input_tokens = 10;
    call.output_tokens = 20;
    call.cost_usd = 0.5;
    int64_t id = *store_->AddCandidate(c, &call);
    int64_t e = *store_->BeginEvaluation(run_, "k" + std::to_string(seq), task, id);
    Verdict v;
    v.status = passed ? VerdictStatus::kPassed : VerdictStatus::kIncorrect;
    v.reason = passed ? "" : "output 0 differs";
    if (passed) {
      TimingResult t;
      t.summary.median = 1e-3;
      t.samples = {1e-3};
      v.timing.candidate_time = t;
      t.summary.median = speedup * 1e-3;
      v.timing.reference_time = t;
      v.timing.speedup = speedup;
    }
    ASSERT_TRUE(store_->FinishEvaluation(e, v).ok());
  }

  std::vector<json> Rows(ExportOptions::Keep keep) {
    auto data = LoadRunData(*store_, run_);
    EXPECT_TRUE(data.ok());
    std::ostringstream out;
    ExportOptions o;
    o.keep = keep;
    int n = WriteJsonl(*data, o, out);
    std::vector<json> rows;
    std::istringstream in(out.str());
    for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
    EXPECT_EQ(n, static_cast<int>(rows.size()));
    return rows;
  }

  std::filesystem::path dir_;
  std::unique_ptr<Store> store_;
  int64_t run_ = 0;
};

TEST_F(JsonlExportTest, OneRowPerAttemptWithTheDocumentedFields) {
  auto rows = Rows(ExportOptions::Keep::kAll);
  ASSERT_EQ(rows.size(), 4u);
  const json& r = rows[1];
  EXPECT_EQ(r["task"], "add");
  EXPECT_EQ(r["category"], "level1");
  EXPECT_EQ(r["attempt"], 1);
  EXPECT_EQ(r["prompt"]["messages"][0]["text"], "write it");
  EXPECT_EQ(r["code"], "int x = 1;");
  EXPECT_EQ(r["status"], "passed");
  EXPECT_DOUBLE_EQ(r["speedup"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(r["timings"]["candidate_median_us"].get<double>(), 1000.0);
  EXPECT_EQ(r["llm"]["output_tokens"], 20);
  EXPECT_TRUE(r["is_best"].get<bool>());
  EXPECT_FALSE(rows[0]["is_best"].get<bool>());
  EXPECT_EQ(rows[2]["status"], "incorrect");
  EXPECT_EQ(rows[2]["reason"], "output 0 differs");
  EXPECT_TRUE(rows[2]["speedup"].is_null());
}

TEST_F(JsonlExportTest, KeepsOnlyPassedOrTheBestPerTask) {
  EXPECT_EQ(Rows(ExportOptions::Keep::kPassed).size(), 2u);
  auto best = Rows(ExportOptions::Keep::kBestPerTask);
  ASSERT_EQ(best.size(), 1u);  // "mul" has no passed attempt
  EXPECT_EQ(best[0]["attempt"], 1);
  EXPECT_EQ(ParseKeep("best"), ExportOptions::Keep::kBestPerTask);
  EXPECT_FALSE(ParseKeep("some"));
}

}  // namespace jsonl_export_test
}  // namespace
}  // namespace hone
