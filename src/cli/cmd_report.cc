// hone report RUN: what a stored run came to. Without -o, a terminal summary
// (or with --json one JSON document); with -o FILE.html, a self-contained
// HTML report with plots (docs/REPORT.md). Reads only: a run still going may
// be reported on (the store is WAL; readers never wait on the writer).
// Exit 0 on success, 2 for bad usage (no such store or run), 1 when the
// report cannot be made here (no Chart.js, a file that cannot be written).
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/eval_flags.h"
#include "cli/store_flags.h"
#include "core/fs.h"
#include "core/json_text.h"
#include "report/html_report.h"
#include "report/run_data.h"
#include "report/run_summary_text.h"

namespace hone::cli {
namespace {

struct ReportArgs {
  std::string run;
  std::string store;
  std::string html;  // -o: empty for the terminal summary
  Output out;
};

// Now, as the store writes times ("2026-11-22T07:45:01Z").
std::string NowUtc() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// The run's data from an existing store (opening a missing one would
// create it).
Result<RunData> Load(const ReportArgs& a) {
  std::error_code ec;
  if (!std::filesystem::exists(a.store, ec))
    return Status::Invalid(a.store + ": no such store (--store, or $HONE_STORE)");
  HONE_ASSIGN_OR_RETURN(auto store, OpenStore(a.store));
  HONE_ASSIGN_OR_RETURN(int64_t id, ResolveRun(*store, a.run));
  return LoadRunData(*store, id);
}

Status WriteHtml(const ReportArgs& a, const RunData& data, const RunSummary& summary) {
  HONE_ASSIGN_OR_RETURN(std::string chart_js, LoadChartJs());
  std::string page = RenderHtmlReport(data, summary, chart_js, NowUtc());
  return WriteFileAtomic(a.html, page).With("-o " + a.html + ": ");
}

int RunReport(const ReportArgs& a) {
  if (Status st = CheckOutputFile(a.html); !st.ok()) return ReportError(st);
  auto data = Load(a);
  if (!data.ok()) return ReportError(data.status());
  RunSummary summary = SummarizeRun(*data);
  if (!a.html.empty()) {
    if (Status st = WriteHtml(a, *data, summary); !st.ok()) return ReportError(st);
  }
  if (a.out.json) {
    nlohmann::json j = RunSummaryJson(*data, summary);
    if (!a.html.empty()) j["html"] = a.html;
    std::cout << JsonText(j, 2) << "\n";
  } else if (!a.html.empty()) {
    std::cout << a.html << "\n";
  } else if (!a.out.quiet) {
    std::cout << RunSummaryText(*data, summary);
  }
  return kExitOk;
}

}  // namespace

Command RegisterReport(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* report = app.add_subcommand(
      "report", "Summarise a stored run in the terminal, or write an HTML report with plots");
  report->add_option("run", args->run, "The run: its id, or 'last'")->required();
  AddStoreFlag(report, args->store);
  report->add_option("-o,--output", args->html,
                     "Write a self-contained HTML report to this file and print its path");
  AddOutputFlags(report, args->out);
  return [args] { return RunReport(*args); };
}

}  // namespace hone::cli
