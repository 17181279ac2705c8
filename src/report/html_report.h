// `hone report RUN -o FILE.html`: one self-contained HTML page about a stored
// run. Everything is inlined (CSS, the page's script, Chart.js, the data as
// one JSON blob); the page references no URL, so it opens offline and can be
// mailed or archived as one file. docs/REPORT.md describes what it shows.
//
// Plots are drawn by Chart.js, read at report time from the Debian package
// libjs-chart.js (FindChartJs). The page checks itself: after drawing, its
// script writes on <html> data-charts-expected (how many plot canvases),
// data-charts-rendered (how many were drawn with nonzero size and ink) and,
// when a script failed, data-script-errors; every canvas gets
// data-drawn-pixels. tests/integration/report_html_test.cc reads these from
// a headless browser.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/status.h"
#include "report/run_data.h"
#include "report/run_summary_text.h"

namespace hone {

// Where Debian's libjs-chart.js installs Chart.js (3.9).
inline constexpr char kDebianChartJsPath[] = "/usr/share/javascript/chart.js/chart.min.js";

// Chart.js's path: $HONE_CHARTJS when set, else kDebianChartJsPath. A
// missing file is kUnavailable naming the path and the package to install.
Result<std::filesystem::path> FindChartJs();
// FindChartJs's file, read.
Result<std::string> LoadChartJs();

// The page. `chart_js` is Chart.js's source, inlined as it is (apart from
// ScriptSafe). `generated` is shown as the report's time ("" leaves it out).
std::string RenderHtmlReport(const RunData& run, const RunSummary& summary,
                             std::string_view chart_js, const std::string& generated = "");

// The data the page's plots are drawn from (inlined as JSON): the fast_p
// curve on a fine grid with the KernelBench thresholds, the histogram of
// passed attempts' speedups in log-scale bins, attempts by outcome, the
// most frequent failure reasons and, for LLM runs, the best speedup so far
// per candidate and over time and the cumulative spend.
nlohmann::json ReportChartData(const RunData& run, const RunSummary& summary);

// Text as HTML (& < > " ' escaped): safe in element content and attributes.
std::string HtmlEscape(std::string_view text);
// Script text that cannot end its <script> element early: "</script" (any
// case) becomes "<\/script" and "<!--" becomes "<\!--". Both rewrites keep
// the meaning inside JavaScript strings, regular expressions and comments,
// the only places such text appears in a program.
std::string ScriptSafe(std::string_view js);
// JSON for a <script type="application/json">: '<', '>' and '&' written as
// \u escapes (valid JSON, the same value), so no tag can occur in it.
std::string ScriptSafeJson(const nlohmann::json& j);

}  // namespace hone
