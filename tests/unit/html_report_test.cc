// The HTML report and the terminal summary of a run fabricated through the
// Store API: self-contained (no URL loads anything), Chart.js and the data
// inlined, user text escaped, and a clear error without Chart.js.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/fs.h"
#include "report/run_data.h"
#include "report/run_summary_text.h"
#include "store/store.h"

namespace hone {
namespace {

using json = nlohmann::json;

constexpr char kEvilSource[] = "// </script><b>bold</b> & 'quotes'\nint main() { return 0; }\n";
constexpr char kStubChartJs[] =
    "/* stand-in for Chart.js; has </SCRIPT> and <!-- in it */ window.Chart = function () {};";

std::string PassedVerdict(double speedup, std::optional<double> compile, double sol) {
  json timing = {{"speedup", speedup},
                 {"sol_percent", sol},
                 {"candidate", {{"median_us", 10.0}, {"ci95_us", {9.5, 10.5}}, {"reps", 40}}},
                 {"reference", {{"median_us", 10.0 * speedup}}}};
  if (compile) {  // a PyTorch task's: timed against the eager Model
    timing["speedup_compile"] = *compile;
    timing["baseline"] = "torch eager";
  }
  return json(
             {{"status", "passed"},
              {"reason", "all checks passed"},
              {"checks",
               {{{"name", "correct"}, {"where", "N=1023 seed=1"}, {"passed", true}, {"detail", ""}},
                {{"name", "inputs_unchanged"}, {"where", ""}, {"passed", true}, {"detail", ""}}}},
              {"timing", timing},
              {"machine", {{"name", "Test CPU 9000"}}}})
      .dump();
}

std::string FailedVerdict(const std::string& status, const std::string& reason) {
  return json({{"status", status},
               {"reason", reason},
               {"checks",
                {{{"name", "correct"}, {"where", "N=7"}, {"passed", false}, {"detail", "off"}}}}})
      .dump();
}

// A finished optimize run over three tasks in two categories: passed,
// incorrect and compile_error attempts, a reply without code, a failed LLM
// call, and a kernel whose source tries to break out of the page.
class HtmlReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = MakeTempDir(std::filesystem::temp_directory_path(), "hone-report-test");
    ASSERT_TRUE(d.ok()) << d.status().message();
    dir_ = *d;
    auto s = Store::Open(dir_ / "runs.db");
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
    auto run = store_->CreateRun("optimize", R"({"strategy":"refine"})", "fabricated");
    ASSERT_TRUE(run.ok()) << run.status().message();
    run_ = *run;
    AddTask("h_add", "vector_add", "level1", 0);
    AddTask("h_relu", "relu<script>", "level1", 1);
    AddTask("h_mm", "matmul", "level2", 2);
    Attempt("h_add", 1, "int a;", "incorrect", FailedVerdict("incorrect", "max error 3 at [5]"));
    Attempt("h_add", 2, "int b;", "passed", PassedVerdict(1.5, 0.9, 30));
    Attempt("h_add", 3, kEvilSource, "passed", PassedVerdict(2.5, 1.2, 42));
    Attempt("h_relu", 4, "int c;", "compile_error",
            FailedVerdict("compile_error", "x.cpp:1: error: expected ';'\nmore log"));
    Attempt("h_relu", 5, "int d;", "incorrect", FailedVerdict("incorrect", "max error 3 at [5]"));
    Attempt("h_mm", 6, std::nullopt, "", "");         // no code in the reply
    Attempt("h_mm", 7, std::nullopt, "", "", false);  // the LLM call failed
    Attempt("h_mm", 8, "int e;", "passed", PassedVerdict(0.5, std::nullopt, 10));
    ASSERT_TRUE(store_->SetRunStatus(run_, "finished").ok());
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void AddTask(const std::string& hash, const std::string& name, const std::string& category,
               int position) {
    ASSERT_TRUE(store_->PutTask({hash, name, "tasks/" + name + ".py", "definition"}).ok());
    ASSERT_TRUE(store_->AddRunTask(run_, hash, category, position).ok());
  }

  // One attempt with its LLM call; evaluated when `verdict` is not empty.
  void Attempt(const std::string& task, int seq, std::optional<std::string> source,
               const std::string& status, const std::string& verdict, bool call_ok = true) {
    CandidateRow c;
    c.run_id = run_;
    c.task_hash = task;
    c.seq = seq;
    c.kind = seq == 1 ? "sample" : "refine";
    c.source = source;
    c.extraction = source ? R"({"failure":"none","detail":""})"
                          : R"({"failure":"no_code_block","detail":"no fenced code block"})";
    LlmCallRow call;
    call.run_id = run_;
    call.attempt_seq = seq;
    call.provider = "fake";
    call.model = "fake-1";
    call.ok = call_ok;
    call.error = call_ok ? "" : "HTTP 529: overloaded";
    call.input_tokens = 1000;
    call.output_tokens = 200 * seq;
    call.cost_usd = 0.01;
    call.seconds = 2;
    auto id = store_->AddCandidate(c, &call);
    ASSERT_TRUE(id.ok()) << id.status().message();
    if (verdict.empty()) return;
    auto e = store_->BeginEvaluation(run_, "key" + std::to_string(seq), task, *id);
    ASSERT_TRUE(e.ok()) << e.status().message();
    ASSERT_TRUE(store_->FinishEvaluationJson(*e, verdict).ok()) << status;
  }

  RunData Load() {
    auto d = LoadRunData(*store_, run_);
    EXPECT_TRUE(d.ok()) << d.status().message();
    return d.ok() ? std::move(d).value() : RunData{};
  }

  // Chart.js as the report would inline it, or a stand-in without it.
  static std::string ChartJs() {
    auto js = LoadChartJs();
    return js.ok() ? *js : kStubChartJs;
  }

  static json DataBlob(const std::string& html) {
    const std::string open = "<script type=\"application/json\" id=\"hone-data\">";
    size_t start = html.find(open);
    EXPECT_NE(start, std::string::npos);
    if (start == std::string::npos) return nullptr;
    start += open.size();
    size_t end = html.find("</script>", start);
    return json::parse(html.substr(start, end - start));
  }

  static size_t Count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  std::filesystem::path dir_;
  std::unique_ptr<Store> store_;
  int64_t run_ = 0;
};

TEST_F(HtmlReportTest, SummaryPicksTheBestKernelPerTask) {
  RunData d = Load();
  RunSummary s = SummarizeRun(d);
  ASSERT_EQ(s.tasks.size(), 3u);
  EXPECT_EQ(s.tasks[0].name, "vector_add");
  EXPECT_EQ(s.tasks[0].attempts, 3);
  EXPECT_EQ(s.tasks[0].passed, 2);
  ASSERT_TRUE(s.tasks[0].best.has_value());
  EXPECT_EQ(d.attempts[*s.tasks[0].best].candidate.seq, 3);
  EXPECT_DOUBLE_EQ(*s.tasks[0].speedup, 2.5);
  EXPECT_DOUBLE_EQ(*s.tasks[0].speedup_compile, 1.2);
  EXPECT_FALSE(s.tasks[1].best.has_value());
  EXPECT_EQ(d.attempts[*s.tasks[2].best].candidate.seq, 8);
  EXPECT_EQ(s.outcomes["passed"], 3);
  EXPECT_EQ(s.outcomes["incorrect"], 2);
  EXPECT_EQ(s.outcomes["compile_error"], 1);
  EXPECT_EQ(s.outcomes["no_code"], 1);
  EXPECT_EQ(s.outcomes["llm_error"], 1);
  ASSERT_FALSE(s.reasons.empty());
  EXPECT_EQ(s.reasons[0].outcome, "incorrect");  // the most frequent first
  EXPECT_EQ(s.reasons[0].count, 2);
  EXPECT_TRUE(s.optimize);
  EXPECT_EQ(s.spend.calls, 8);
  EXPECT_EQ(s.spend.failed_calls, 1);
  EXPECT_EQ(s.spend.input_tokens, 8000);
  EXPECT_NEAR(s.spend.cost_usd, 0.08, 1e-9);
  EXPECT_EQ(s.machine, "Test CPU 9000");
}

TEST_F(HtmlReportTest, TerminalSummaryShowsRunOutcomesMetricsTasksSpendAndFailures) {
  RunData d = Load();
  std::string text = RunSummaryText(d, SummarizeRun(d));
  for (const char* want : {"(optimize, finished) fabricated",
                           "machine: Test CPU 9000",
                           "attempts: 8: 3 passed",
                           "2 incorrect",
                           "1 compile_error",
                           "1 llm_error",
                           "1 no_code",
                           "fast_1 eager",  // the metrics table
                           "level2",
                           "vector_add",
                           "2.50x",
                           "1.20x",
                           "#3",
                           "spend: 8 LLM call(s) (1 failed)",
                           "8000 input",
                           "failures:",
                           "max error 3 at [5]",
                           "HTTP 529: overloaded",
                           "no fenced code block",
                           "x.cpp:1: error: expected ';'"})
    EXPECT_NE(text.find(want), std::string::npos) << "missing '" << want << "' in\n" << text;
  EXPECT_EQ(text.find("more log"), std::string::npos) << "only a reason's first line";
}

TEST_F(HtmlReportTest, JsonSummaryHasRunMetricsTasksAndOutcomes) {
  RunData d = Load();
  json j = RunSummaryJson(d, SummarizeRun(d));
  EXPECT_EQ(j["run"]["id"], run_);
  EXPECT_EQ(j["run"]["kind"], "optimize");
  EXPECT_EQ(j["run"]["config"]["strategy"], "refine");
  EXPECT_EQ(j["outcomes"]["passed"], 3);
  EXPECT_EQ(j["metrics"]["tasks"], 3);
  EXPECT_TRUE(j["metrics"].contains("by_category"));
  ASSERT_EQ(j["tasks"].size(), 3u);
  EXPECT_EQ(j["tasks"][0]["best"]["seq"], 3);
  EXPECT_DOUBLE_EQ(j["tasks"][0]["best"]["speedup"].get<double>(), 2.5);
  EXPECT_TRUE(j["tasks"][1]["best"].is_null());
  EXPECT_EQ(j["spend"]["calls"], 8);
}

// The best kernel's section shows the profiler's diagnosis of it.
TEST_F(HtmlReportTest, TheBestKernelShowsItsProfile) {
  json v = json::parse(PassedVerdict(3.0, std::nullopt, 60));
  v["profile"] = {{"tool", "ncu 2025.3.1"},
                  {"diagnosis",
                   {{"label", "underutilised, memory-bound"},
                    {"evidence", {"the grid (64 blocks) leaves 68 of the 132 SMs idle"}},
                    {"fix", "launch <more> blocks"}}},
                  {"not_run", ""}};
  Attempt("h_add", 9, "int f;", "passed", v.dump());
  RunData d = Load();
  std::string html = RenderHtmlReport(d, SummarizeRun(d), kStubChartJs, "2026-01-01T00:00:00Z");
  EXPECT_NE(html.find("profiler (ncu 2025.3.1): <b>underutilised, memory-bound</b>"),
            std::string::npos);
  EXPECT_NE(html.find("<li>the grid (64 blocks) leaves 68 of the 132 SMs idle</li>"),
            std::string::npos);
  EXPECT_NE(html.find("likely fix: launch &lt;more&gt; blocks"), std::string::npos);
}

TEST_F(HtmlReportTest, PageLoadsNothingFromTheNetwork) {
  RunData d = Load();
  std::string js = ChartJs();
  std::string html = RenderHtmlReport(d, SummarizeRun(d), js, "2026-01-01T00:00:00Z");
  // Nothing is fetched: no src/href/url() pointing anywhere, no stylesheet links.
  std::regex fetch(R"((src|href)\s*=\s*["']?\s*(https?:|//|file:))", std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, fetch));
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<iframe"), std::string::npos);
  // Chart.js carries its licence banner's URLs; the rest of the page has none.
  std::string inlined = ScriptSafe(js);
  size_t at = html.find(inlined);
  ASSERT_NE(at, std::string::npos) << "Chart.js is not inlined";
  std::string rest = html.substr(0, at) + html.substr(at + inlined.size());
  EXPECT_EQ(rest.find("http://"), std::string::npos);
  EXPECT_EQ(rest.find("https://"), std::string::npos);
  // Every plot's canvas is there; LLM runs get the progress and spend plots.
  for (const char* chart :
       {"fastp", "histogram", "outcomes", "reasons", "progress_seq", "progress_time", "spend"})
    EXPECT_NE(html.find(std::string("data-chart=\"") + chart + "\""), std::string::npos) << chart;
}

TEST_F(HtmlReportTest, DataBlobHoldsWhatThePlotsDraw) {
  RunData d = Load();
  std::string html = RenderHtmlReport(d, SummarizeRun(d), kStubChartJs);
  json data = DataBlob(html);
  ASSERT_TRUE(data.is_object());
  EXPECT_EQ(data, ReportChartData(d, SummarizeRun(d)));
  // fast_p at its breaks, for a log axis: from 0.25 (below the slowest, 0.5)
  // to 4 (past the fastest, 2.5), and at each best speedup (eager 0.5 and
  // 2.5, compile 1.2), where the curves step down.
  const json& f = data["fast_p"];
  EXPECT_EQ(f["label"], "vs eager");  // the passed attempts were timed against eager
  EXPECT_EQ(f["p"], json({0.25, 0.5, 1.2, 2.5, 4.0}));
  ASSERT_EQ(f["eager"].size(), 5u);
  EXPECT_NEAR(f["eager"][0].get<double>(), 2.0 / 3, 1e-3);  // two of three tasks solved
  EXPECT_NEAR(f["eager"][1].get<double>(), 1.0 / 3, 1e-3);  // 0.5 is not faster than 0.5
  EXPECT_NEAR(f["eager"][2].get<double>(), 1.0 / 3, 1e-3);
  EXPECT_DOUBLE_EQ(f["eager"][3].get<double>(), 0);
  EXPECT_DOUBLE_EQ(f["eager"][4].get<double>(), 0);
  ASSERT_FALSE(f["compile"].is_null());
  EXPECT_NEAR(f["compile"][1].get<double>(), 1.0 / 3, 1e-3);
  EXPECT_DOUBLE_EQ(f["compile"][2].get<double>(), 0);
  EXPECT_EQ(f["thresholds"].size(), std::size(kFastPThresholds));
  int histogram = 0;
  for (const auto& n : data["speedup_histogram"]["counts"]) histogram += n.get<int>();
  EXPECT_EQ(histogram, 3);  // every passed, timed attempt
  EXPECT_EQ(data["outcomes"]["labels"][0], "passed");
  EXPECT_EQ(data["reasons"]["counts"][0], 2);
  // Reason labels are wrapped into lines of at most 40 characters.
  for (const auto& label : data["reasons"]["labels"]) {
    ASSERT_TRUE(label.is_array()) << label;
    for (const auto& l : label) EXPECT_LE(l.get<std::string>().size(), 40u) << label;
  }
  EXPECT_EQ(data["reasons"]["labels"][0], json({"incorrect: max error 3 at [5]"}));
  // vector_add: best 1.5 from seq 2, 2.5 from seq 3.
  const json& add = data["progress_by_candidate"][0];
  EXPECT_EQ(add["label"], "vector_add");
  ASSERT_EQ(add["points"].size(), 2u);
  EXPECT_EQ(add["points"][1]["x"], 3);
  EXPECT_DOUBLE_EQ(add["points"][1]["y"].get<double>(), 2.5);
  ASSERT_EQ(data["spend"].size(), 8u);
  EXPECT_NEAR(data["spend"][7]["cost"].get<double>(), 0.08, 1e-9);
}

TEST_F(HtmlReportTest, UserTextIsEscapedAndCannotCloseAScript) {
  RunData d = Load();
  std::string html = RenderHtmlReport(d, SummarizeRun(d), kStubChartJs);
  // The kernel's source is shown escaped, never as markup.
  EXPECT_NE(html.find("// &lt;/script&gt;&lt;b&gt;bold&lt;/b&gt; &amp; &#39;quotes&#39;"),
            std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_NE(html.find("relu&lt;script&gt;"), std::string::npos);
  // Every "</script" closes one of the page's own <script> elements: none
  // comes from the data (a task name, the source) or the inlined library.
  std::string lower = html;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  EXPECT_EQ(Count(lower, "</script"), Count(lower, "<script"));
  EXPECT_EQ(Count(lower, "<!--"), 0u);
  EXPECT_NE(html.find("<\\/SCRIPT> and <\\!-- in it"), std::string::npos);
  // The JSON blob still holds the original text.
  json data = DataBlob(html);
  EXPECT_EQ(data["progress_by_candidate"].size(), 3u);
  bool found = false;
  for (const auto& s : data["progress_by_candidate"]) found |= s["label"] == "relu<script>";
  EXPECT_TRUE(found);
}

// Native tasks are timed against their reference and have no torch.compile
// time: the page says "reference" and has no compile columns.
TEST_F(HtmlReportTest, NativeTasksAreLabelledAgainstTheirReferenceWithoutCompileColumns) {
  auto run = store_->CreateRun("bench", "{}", "native");
  ASSERT_TRUE(run.ok());
  run_ = *run;
  // A native task: a folder (its task.toml not there here), no extension.
  ASSERT_TRUE(
      store_->PutTask({"h_native", "row_sum", "tasks/examples/row_sum", "definition"}).ok());
  ASSERT_TRUE(store_->AddRunTask(run_, "h_native", "examples", 0).ok());
  Attempt("h_native", 1, "int a;", "passed", PassedVerdict(1.5, std::nullopt, 30));
  ASSERT_TRUE(store_->SetRunStatus(run_, "finished").ok());
  RunData d = Load();
  std::string html = RenderHtmlReport(d, SummarizeRun(d), kStubChartJs);
  EXPECT_NE(html.find("fast_1 (reference)"), std::string::npos) << html;
  EXPECT_EQ(html.find("vs compile</th>"), std::string::npos) << "no compile column";
  EXPECT_EQ(html.find("/ compile"), std::string::npos) << "no compile in the metrics' labels";
}

// A bench whose suite had a task that did not load: the figures are over
// the three that did, and the page and `hone report` say so, as the bench
// said on its terminal ("tasks solved 100%" would hide it).
TEST_F(HtmlReportTest, AMalformedTaskOfTheSuiteIsNamedBesideTheFigures) {
  ASSERT_TRUE(store_->SetRunStatus(run_, "finished", R"({"malformed_tasks": 1})").ok());
  RunData d = Load();
  const std::string note =
      "note: 1 malformed task is not in these figures: 2 of the 4 tasks listed solved (50%)";
  EXPECT_NE(RenderHtmlReport(d, SummarizeRun(d), kStubChartJs).find(note), std::string::npos);
  EXPECT_NE(RunSummaryText(d, SummarizeRun(d)).find(note), std::string::npos)
      << RunSummaryText(d, SummarizeRun(d));
  ASSERT_TRUE(store_->SetRunStatus(run_, "finished", "{}").ok());
  d = Load();
  EXPECT_EQ(RunSummaryText(d, SummarizeRun(d)).find("malformed"), std::string::npos);
}

TEST_F(HtmlReportTest, ARunInProgressSaysSo) {
  ASSERT_TRUE(store_->SetRunStatus(run_, "running").ok());
  RunData d = Load();
  std::string html = RenderHtmlReport(d, SummarizeRun(d), kStubChartJs);
  EXPECT_NE(html.find("still in progress"), std::string::npos);
}

TEST(ScriptSafeTest, RewritesOnlyWhatEndsAScript) {
  EXPECT_EQ(ScriptSafe("a</ScRiPt>b<!--c</scrip"), "a<\\/ScRiPt>b<\\!--c</scrip");
  EXPECT_EQ(ScriptSafe("x < y && y > z"), "x < y && y > z");
  EXPECT_EQ(ScriptSafeJson(json("</script><!--&")), "\"\\u003c/script\\u003e\\u003c!--\\u0026\"");
  EXPECT_EQ(json::parse(ScriptSafeJson(json("</script><!--&"))), "</script><!--&");
}

TEST(HtmlEscapeTest, EscapesMarkupCharacters) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

class ChartJsPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("HONE_CHARTJS");
    if (old) saved_ = old;
  }
  void TearDown() override {
    if (saved_)
      setenv("HONE_CHARTJS", saved_->c_str(), 1);
    else
      unsetenv("HONE_CHARTJS");
  }
  std::optional<std::string> saved_;
};

TEST_F(ChartJsPathTest, MissingChartJsIsAClearError) {
  setenv("HONE_CHARTJS", "/nonexistent/chart.min.js", 1);
  auto path = FindChartJs();
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(path.status().message().find("/nonexistent/chart.min.js"), std::string::npos);
  EXPECT_NE(path.status().message().find("install libjs-chart.js"), std::string::npos);
  EXPECT_NE(path.status().message().find("HONE_CHARTJS"), std::string::npos);
  EXPECT_FALSE(LoadChartJs().ok());
}

TEST_F(ChartJsPathTest, EnvironmentOverridesTheDebianPath) {
  auto dir = MakeTempDir(std::filesystem::temp_directory_path(), "hone-chartjs");
  ASSERT_TRUE(dir.ok());
  std::filesystem::path file = *dir / "chart.min.js";
  ASSERT_TRUE(WriteFileAtomic(file, kStubChartJs).ok());
  setenv("HONE_CHARTJS", file.c_str(), 1);
  auto js = LoadChartJs();
  ASSERT_TRUE(js.ok()) << js.status().message();
  EXPECT_EQ(*js, kStubChartJs);
  unsetenv("HONE_CHARTJS");
  auto path = FindChartJs();
  if (path.ok())
    EXPECT_EQ(*path, kDebianChartJsPath);
  else
    EXPECT_NE(path.status().message().find(kDebianChartJsPath), std::string::npos);
  std::filesystem::remove_all(*dir);
}

}  // namespace
}  // namespace hone
