// `hone export RUN --format flashinfer-trace`: a stored run's evaluations
// of FlashInfer-Trace problems as the format's trace records, one JSON
// object per line, which the format's own tools read:
//
//   {"definition": NAME, "workload": {uuid, axes, inputs}, "solution": NAME,
//    "evaluation": {"status", "log", "environment": {"hardware", "libs"},
//                   "timestamp", "correctness": {max_relative_error,
//                   max_absolute_error}, "performance": {latency_ms,
//                   reference_latency_ms, speedup_factor}}}
//
// correctness is present for PASSED and INCORRECT_NUMERICAL, performance
// for PASSED, as the format's schema requires. The definition and workload
// are read back from the problem file hone wrote (its text in the store, or
// the file at the task's path, which hone keeps by content hash); the
// solution's name from the file hone wrote for it, else the
// bench's label, else "hone-run<R>-<seq>". Attempts of other formats,
// evaluations not finished, and busy ones (a shared GPU decided nothing),
// are left out (counted in `skipped`).
//
// Pure over its inputs; thread-compatible.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "report/jsonl_export.h"
#include "report/run_data.h"

namespace hone {

struct TraceExportCount {
  int written = 0, skipped = 0;
};

// `task_text` gives a task's stored text by its hash (nullopt: unknown).
TraceExportCount WriteFlashInferTraces(
    const RunData& run, const ExportOptions& options,
    const std::function<std::optional<std::string>(const std::string&)>& task_text,
    std::ostream& out);

}  // namespace hone
