// hone report's HTML page in a real browser: headless Chromium opens the
// file and the page's own script records, on <html>, how many plots it drew
// and any script error (report/html_report.h). The test reads them from the
// DOM Chromium dumps. Skipped when Chromium is not installed (Debian package
// `chromium`; $HONE_CHROMIUM names another binary). With
// HONE_REPORT_SCREENSHOT=DIR the pages and a screenshot of each are kept in
// DIR.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/fs.h"
#include "integration/bench_runs.h"
#include "integration/test_env.h"
#include "store/store.h"

namespace hone {
namespace {

using namespace hone::testing;
using json = nlohmann::json;

std::string ChromiumBinary() {
  const char* e = std::getenv("HONE_CHROMIUM");
  std::string path = e && *e ? e : "/usr/bin/chromium";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

// What the page said about itself once loaded.
struct PageState {
  std::map<std::string, std::string> html_attributes;
  std::vector<std::map<std::string, std::string>> canvases;
};

std::map<std::string, std::string> Attributes(const std::string& tag) {
  std::map<std::string, std::string> out;
  static const std::regex attribute(R"re(([a-zA-Z-]+)="([^"]*)")re");
  for (std::sregex_iterator it(tag.begin(), tag.end(), attribute), end; it != end; ++it)
    out[(*it)[1]] = (*it)[2];
  return out;
}

PageState ParseDom(const std::string& dom) {
  PageState p;
  std::smatch m;
  if (std::regex_search(dom, m, std::regex("<html[^>]*>"))) p.html_attributes = Attributes(m[0]);
  static const std::regex canvas("<canvas[^>]*>");
  for (std::sregex_iterator it(dom.begin(), dom.end(), canvas), end; it != end; ++it)
    p.canvases.push_back(Attributes((*it)[0]));
  return p;
}

// Runs Chromium headless on `page`, its stdout into `out` (stderr, mostly
// D-Bus noise in a container, into out.err).
CommandResult Chromium(const std::string& chromium, const std::filesystem::path& work,
                       const std::vector<std::string>& mode, const std::filesystem::path& page,
                       const std::filesystem::path& out) {
  std::vector<std::string> argv = {chromium,
                                   "--headless=new",
                                   "--no-sandbox",  // needed as root
                                   "--disable-gpu",
                                   "--no-first-run",
                                   "--user-data-dir=" + (work / "chromium-profile").string(),
                                   "--window-size=1400,3000",
                                   "--virtual-time-budget=10000"};
  argv.insert(argv.end(), mode.begin(), mode.end());
  argv.push_back("file://" + page.string());
  std::string shell = QuoteCommand(argv) + " > " + QuoteCommand({out.string()}) + " 2> " +
                      QuoteCommand({out.string() + ".err"});
  CommandOptions o;
  o.timeout = std::chrono::seconds(60);
  return std::move(RunCommand({"/bin/sh", "-c", shell}, o)).value();
}

// What the page measured on one drawn plot (html_report_charts.cc, recordChecks):
// nothing cut off at the canvas's edge (a clipped label leaves ink there);
// every two legend entries drawn unlike each other; on fast_p, KernelBench's
// thresholds 0.5 to 2 spread over a good part of the width, not squeezed
// into its left end, and its eager curve drawn at the heights of its data.
void ExpectReadable(std::map<std::string, std::string>& c) {
  ASSERT_TRUE(c.count("data-edge-ink")) << c["id"] << ": the page did not check it";
  EXPECT_EQ(c["data-edge-ink"], "0") << c["id"] << ": something is cut off at the canvas's edge";
  if (c.count("data-legend-items")) {
    EXPECT_GT(std::atof(c["data-legend-least-difference"].c_str()), 0.2)
        << c["id"] << ": two of its " << c["data-legend-items"]
        << " legend entries are drawn alike";
  }
  if (c["data-chart"] != "fastp") return;
  EXPECT_TRUE(c.count("data-legend-items")) << "fast_p has no legend";
  EXPECT_GT(std::atof(c["data-threshold-spread"].c_str()), 0.15)
      << "fast_p's thresholds 0.5 to 2 take only this share of its width";
  EXPECT_GT(std::atoi(c["data-steps-checked"].c_str()), 0) << "fast_p's curve was not checked";
  EXPECT_EQ(c["data-steps-off-curve"], "0") << "fast_p's curve is not drawn at its steps' heights ("
                                            << c["data-steps-checked"] << " checked)";
}

// Opens the report in Chromium and checks every plot was drawn, without a
// script error, and readable (ExpectReadable); with HONE_REPORT_SCREENSHOT
// keeps the page and a screenshot.
void ExpectPlotsDrawn(const std::filesystem::path& work, const std::filesystem::path& page,
                      const std::string& name, size_t min_plots) {
  std::string chromium = ChromiumBinary();
  std::filesystem::path dom = work / (name + ".dom.html");
  CommandResult r = Chromium(chromium, work, {"--dump-dom"}, page, dom);
  ASSERT_TRUE(r.succeeded()) << r.output << *ReadFile(dom.string() + ".err");
  auto text = ReadFile(dom);
  ASSERT_TRUE(text.ok()) << text.status().message();
  PageState p = ParseDom(*text);
  EXPECT_EQ(p.html_attributes.count("data-script-errors"), 0u)
      << "script errors: " << p.html_attributes["data-script-errors"];
  ASSERT_GE(p.canvases.size(), min_plots);
  EXPECT_EQ(p.html_attributes["data-charts-expected"], std::to_string(p.canvases.size()));
  EXPECT_EQ(p.html_attributes["data-charts-rendered"], std::to_string(p.canvases.size()));
  for (auto& c : p.canvases) {
    EXPECT_GT(std::atoi(c["width"].c_str()), 100) << c["id"];
    EXPECT_GT(std::atoi(c["height"].c_str()), 100) << c["id"];
    EXPECT_GT(std::atoi(c["data-drawn-pixels"].c_str()), 1000) << c["id"] << " was not drawn";
    ExpectReadable(c);
  }
  const char* keep = std::getenv("HONE_REPORT_SCREENSHOT");
  if (!keep || !*keep) return;
  std::filesystem::path dir = keep;
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(page, dir / (name + ".html"),
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::path png = std::filesystem::absolute(dir / (name + ".png"));
  r = Chromium(chromium, work, {"--screenshot=" + png.string()}, page, work / "shot.out");
  EXPECT_TRUE(r.succeeded()) << r.output;
  EXPECT_TRUE(std::filesystem::exists(png));
  std::printf("report %s: page %s, screenshot %s\n", name.c_str(), (dir / (name + ".html")).c_str(),
              png.c_str());
}

// A temporary folder per test.
class ReportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = MakeTempDir(std::filesystem::temp_directory_path(), "hone-report-html");
    ASSERT_TRUE(d.ok()) << d.status().message();
    dir_ = *d;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path dir_;
};

// The same, skipped without Chromium.
class ReportHtmlTest : public ReportCliTest {
 protected:
  void SetUp() override {
    if (ChromiumBinary().empty())
      GTEST_SKIP() << "Chromium is not installed (apt-get install chromium, or set "
                      "HONE_CHROMIUM): the HTML report is not checked in a browser";
    ReportCliTest::SetUp();
  }
};

// The report of a bench run over three of the example tasks with their
// solutions, small and timed briefly (the whole suite at full size is the
// main job's, scripts/examples; here it would add a minute on two cores for
// no plot more).
TEST_F(ReportHtmlTest, BenchRunOverExamplesRendersInChromium) {
  std::string store = (dir_ / "s.db").string();
  const std::filesystem::path suite = dir_ / "examples";
  std::filesystem::create_directories(suite);
  ASSERT_NO_FATAL_FAILURE(testing::CopySmallExamples(suite, {"softmax", "gelu", "row_sum"}));
  auto bench = RunHone({"bench", suite.string(), "--store", store, "--json", "--quiet",
                        "--time-budget", "0.05", "--warmup", "0.01", "--flush", "lines"});
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  size_t start = bench.output.find('{');
  ASSERT_NE(start, std::string::npos) << bench.output;
  json j = json::parse(bench.output.substr(start, bench.output.rfind('}') - start + 1));
  ASSERT_TRUE(j.contains("run_id")) << bench.output;
  std::string run = std::to_string(j["run_id"].get<int64_t>());

  std::filesystem::path page = dir_ / "report.html";
  auto report = RunHone({"report", run, "--store", store, "-o", page.string()});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NE(report.output.find(page.string()), std::string::npos) << report.output;
  // fast_p, the speedup histogram, the outcomes; a bench has no LLM plots.
  ExpectPlotsDrawn(dir_, page, "bench-examples", 3);

  auto text = RunHone({"report", run, "--store", store});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("(bench, "), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("best kernel per task"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("softmax"), std::string::npos) << text.output;
}

// An LLM run, fabricated through the Store API: the progress and spend
// plots, and a run still in progress.
TEST_F(ReportHtmlTest, OptimizeRunRendersEveryPlotInChromium) {
  std::filesystem::path store_path = dir_ / "s.db";
  int64_t run = 0;
  {
    auto s = Store::Open(store_path);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Store& store = **s;
    auto id = store.CreateRun("optimize", R"({"machine":"fabricated"})", "progress");
    ASSERT_TRUE(id.ok());
    run = *id;
    const char* tasks[] = {"softmax", "matmul"};
    for (int t = 0; t < 2; ++t) {
      ASSERT_TRUE(store.PutTask({tasks[t], tasks[t], "", ""}).ok());
      ASSERT_TRUE(store.AddRunTask(run, tasks[t], t ? "level2" : "level1", t).ok());
    }
    for (int seq = 1; seq <= 12; ++seq) {
      CandidateRow c;
      c.run_id = run;
      c.task_hash = tasks[seq % 2];
      c.seq = seq;
      c.kind = "refine";
      c.source = "// attempt " + std::to_string(seq) + " </script>\nint x;\n";
      LlmCallRow call;
      call.ok = true;
      call.input_tokens = 1500;
      call.output_tokens = 400;
      call.cost_usd = 0.02;
      call.seconds = 3;
      auto cand = store.AddCandidate(c, &call);
      ASSERT_TRUE(cand.ok()) << cand.status().message();
      auto e = store.BeginEvaluation(run, "k" + std::to_string(seq), c.task_hash, *cand);
      ASSERT_TRUE(e.ok());
      // Failures with a short reason and with long ones (the reasons plot
      // must not cut their labels off).
      bool failed = seq % 3 == 0 || seq == 4;
      std::string reason =
          seq == 4   ? "kernel.cpp:12:5: error: no matching function for call to "
                       "'hone_numel(const hone_tensor&)'; did you mean 'hone_numel(const "
                       "hone_tensor*)'?"
          : seq == 9 ? "output 0 (out) differs from the reference at 1023 of 4096 elements: "
                       "max abs error 0.51 at [3, 17] (case N=1023 seed=2 x~normal(0, 1))"
          : failed   ? "max error 0.5 at [3]"
                     : "all checks passed";
      json v = {{"status", seq == 4 ? "compile_error"
                           : failed ? "incorrect"
                                    : "passed"},
                {"reason", reason}};
      if (!failed)
        v["timing"] = {{"speedup", 0.6 + 0.25 * seq},
                       {"speedup_compile", 0.4 + 0.1 * seq},
                       {"candidate", {{"median_us", 100.0 / seq}}},
                       {"reference", {{"median_us", 100.0}}}};
      ASSERT_TRUE(store.FinishEvaluationJson(*e, v.dump()).ok());
    }
  }
  std::filesystem::path page = dir_ / "optimize.html";
  auto report = RunHone({"report", std::to_string(run), "--store", store_path.string(), "-o",
                         page.string(), "--quiet"});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  // fast_p, histogram, outcomes, reasons, two progress plots, spend.
  ExpectPlotsDrawn(dir_, page, "optimize-fabricated", 7);
}

TEST_F(ReportCliTest, MissingStoreOrRunExitsTwo) {
  auto missing = RunHone({"report", "1", "--store", (dir_ / "none.db").string()});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("none.db: no such store"), std::string::npos) << missing.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "none.db"));
  ASSERT_TRUE(Store::Open(dir_ / "empty.db").ok());
  auto no_run = RunHone({"report", "7", "--store", (dir_ / "empty.db").string()});
  EXPECT_EQ(no_run.exit_code, 2) << no_run.output;
  EXPECT_NE(no_run.output.find("empty.db: no run 7"), std::string::npos) << no_run.output;
  // "last" in a store with no runs is the same bad input, not a failure.
  for (const char* last : {"last", "latest"}) {
    auto none = RunHone({"report", last, "--store", (dir_ / "empty.db").string()});
    EXPECT_EQ(none.exit_code, 2) << none.output;
    EXPECT_NE(none.output.find("empty.db: no runs yet"), std::string::npos) << none.output;
  }
}

TEST_F(ReportCliTest, WithoutChartJsTheHtmlReportSaysWhatToInstall) {
  std::filesystem::path store_path = dir_ / "s.db";
  {
    auto s = Store::Open(store_path);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE((*s)->CreateRun("bench", "{}").ok());
  }
  setenv("HONE_CHARTJS", (dir_ / "missing.js").c_str(), 1);
  auto r =
      RunHone({"report", "last", "--store", store_path.string(), "-o", (dir_ / "r.html").string()});
  unsetenv("HONE_CHARTJS");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("install libjs-chart.js"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "r.html"));
}

}  // namespace
}  // namespace hone
