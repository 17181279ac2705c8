// The HTML report's plots (report/html_report.h): the data they are drawn
// from, inlined into the page as one JSON blob; the canvases that stand for
// them in the page; and the page's script, which draws every canvas with
// Chart.js and records on <html> how many plots it drew, for the tests that
// read the page in a headless browser.
//
// Pure functions of a stored run; thread-safe; they do not fail (a run with
// nothing to plot gets a note in place of the plot).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/run_data.h"
#include "report/run_summary_text.h"

namespace hone {

// The data the page's plots are drawn from (inlined as JSON): the fast_p
// curve on a fine grid with the KernelBench thresholds, the histogram of
// passed attempts' speedups in log-scale bins, attempts by outcome, the
// most frequent failure reasons and, for LLM runs, the best speedup so far
// per candidate and over time and the cumulative spend.
nlohmann::json ReportChartData(const RunData& run, const RunSummary& summary);

// The plots' section: a canvas per plot `data` (ReportChartData) can draw, a
// note where it has nothing to draw; the search's plots only for `optimize`
// runs.
std::string PlotsHtml(const nlohmann::json& data, const RunSummary& s);

// Draws every <canvas data-chart=NAME> from the JSON blob, then records how
// many were drawn (nonzero size and some ink).
extern const char kPageScript[];

}  // namespace hone
