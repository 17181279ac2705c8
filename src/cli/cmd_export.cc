// hone export RUN --format jsonl: a stored run's attempts as training data;
// --format flashinfer-trace: its FlashInfer-Trace evaluations as trace records.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/store_flags.h"
#include "core/fs.h"
#include "format/flashinfer_trace_export.h"
#include "report/jsonl_export.h"

namespace hone::cli {
namespace {

struct ExportArgs {
  std::string run, store, format = "jsonl", keep = "all", output;
  bool verdict = false, quiet = false;
};

int RunExport(const ExportArgs& a) {
  const bool traces = a.format == "flashinfer-trace";
  if (a.format != "jsonl" && !traces)
    return ReportError(
        Status::Invalid("--format: expected jsonl or flashinfer-trace, got '" + a.format + "'"));
  auto keep = ParseKeep(a.keep);
  if (!keep)
    return ReportError(
        Status::Invalid("--keep: expected all, passed or best, got '" + a.keep + "'"));
  if (Status st = CheckOutputFile(a.output); !st.ok()) return ReportError(st);
  if (!std::filesystem::exists(a.store))
    return ReportError(Status::Invalid(a.store + ": no run store there (--store)"));
  auto store = OpenStore(a.store);
  if (!store.ok()) return ReportError(store.status());
  auto run_id = ResolveRun(**store, a.run);
  if (!run_id.ok()) return ReportError(run_id.status());
  auto data = LoadRunData(**store, *run_id);
  if (!data.ok()) return ReportError(data.status());
  ExportOptions options;
  options.keep = *keep;
  options.verdict = a.verdict;
  Store& db = **store;
  auto task_text = [&db](const std::string& hash) -> std::optional<std::string> {
    auto row = db.GetTask(hash);
    if (!row.ok() || !*row) return std::nullopt;
    if (!(*row)->definition.empty()) return (*row)->definition;
    // Runs keep the problem's path; a generated one lives in the cache
    // under its content's hash, so what is there is what was evaluated.
    auto text = ReadFile((*row)->path);
    if (!text.ok()) return std::nullopt;
    return *text;
  };
  std::ostringstream text;
  int rows = 0, skipped = 0;
  if (traces) {
    TraceExportCount n = WriteFlashInferTraces(*data, options, task_text, text);
    rows = n.written;
    skipped = n.skipped;
  } else {
    rows = WriteJsonl(*data, options, text);
  }
  if (a.output.empty()) {
    std::cout << text.str() << std::flush;
  } else if (Status st = WriteFileAtomic(a.output, text.str()); !st.ok()) {
    return ReportError(st);
  }
  if (!a.quiet)
    std::fprintf(
        stderr, "hone: exported %d %s of run %lld%s%s\n", rows,
        traces ? (rows == 1 ? "trace" : "traces") : (rows == 1 ? "attempt" : "attempts"),
        static_cast<long long>(*run_id), a.output.empty() ? "" : (" to " + a.output).c_str(),
        skipped
            ? fmt::format(" ({} attempts of other formats or unfinished left out)", skipped).c_str()
            : "");
  return kExitOk;
}

}  // namespace

Command RegisterExport(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  CLI::App* sub =
      app.add_subcommand("export", "Write a stored run's attempts as JSON Lines (SFT/RL data)");
  sub->add_option("run", a->run, "The run: its id, or 'last'")->required();
  AddStoreFlag(sub, a->store);
  sub->add_option("--format", a->format,
                  "jsonl (one object per attempt), or flashinfer-trace (the format's trace "
                  "records of a run's FlashInfer-Trace evaluations)")
      ->capture_default_str();
  sub->add_option("--keep", a->keep,
                  "all attempts, only passed ones, or only the best per task (all, passed, best)")
      ->capture_default_str();
  sub->add_flag("--verdict", a->verdict, "Add each attempt's whole verdict (checks, samples)");
  sub->add_option("-o,--output", a->output, "Write here (default: standard output)");
  sub->add_flag("-q,--quiet", a->quiet, "Do not say how many rows were written");
  return [a] { return RunExport(*a); };
}

}  // namespace hone::cli
