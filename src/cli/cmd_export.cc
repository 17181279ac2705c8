// hone export RUN --format jsonl: a stored run's attempts as training data.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/store_flags.h"
#include "core/fs.h"
#include "report/jsonl_export.h"

namespace hone::cli {
namespace {

struct ExportArgs {
  std::string run, store, format = "jsonl", keep = "all", output;
  bool verdict = false, quiet = false;
};

int RunExport(const ExportArgs& a) {
  if (a.format != "jsonl")
    return ReportError(Status::Invalid("--format: expected jsonl, got '" + a.format + "'"));
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
  int rows = 0;
  if (a.output.empty()) {
    rows = WriteJsonl(*data, options, std::cout);
    std::cout << std::flush;
  } else {
    std::ostringstream text;
    rows = WriteJsonl(*data, options, text);
    if (Status st = WriteFileAtomic(a.output, text.str()); !st.ok()) return ReportError(st);
  }
  if (!a.quiet)
    std::fprintf(stderr, "hone: exported %d attempt%s of run %lld%s\n", rows, rows == 1 ? "" : "s",
                 static_cast<long long>(*run_id),
                 a.output.empty() ? "" : (" to " + a.output).c_str());
  return kExitOk;
}

}  // namespace

Command RegisterExport(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  CLI::App* sub =
      app.add_subcommand("export", "Write a stored run's attempts as JSON Lines (SFT/RL data)");
  sub->add_option("run", a->run, "The run: its id, or 'last'")->required();
  AddStoreFlag(sub, a->store);
  sub->add_option("--format", a->format, "jsonl (one object per attempt)")->capture_default_str();
  sub->add_option("--keep", a->keep,
                  "all attempts, only passed ones, or only the best per task (all, passed, best)")
      ->capture_default_str();
  sub->add_flag("--verdict", a->verdict, "Add each attempt's whole verdict (checks, samples)");
  sub->add_option("-o,--output", a->output, "Write here (default: standard output)");
  sub->add_flag("-q,--quiet", a->quiet, "Do not say how many rows were written");
  return [a] { return RunExport(*a); };
}

}  // namespace hone::cli
