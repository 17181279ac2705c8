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
//
// The page's parts have files of their own: its plots, their data and the
// script that draws them (report/html_report_charts.h), its tables and
// sections (report/html_report_tables.h), and text made safe to inline
// (report/html_escape.h). This header includes the first and the last, whose
// functions (ReportChartData, HtmlEscape, ScriptSafe...) are part of what it
// offers.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/status.h"
#include "report/html_escape.h"
#include "report/html_report_charts.h"
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

}  // namespace hone
