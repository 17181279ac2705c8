// FlashInfer-Trace problems and solutions as the KernelBench-format files
// hone's PyTorch path runs (the oracle, the compat runner, Triton, the
// checks), written once per content under a folder of the cache:
//
//   the problem of one (definition, workload): the definition's reference
//   as Model.forward, get_inputs() drawing the workload's inputs, and
//   hone_task naming the definition, the workload and its tolerance;
//
//   a solution in python or triton (or cuda/cpp with the torch binding):
//   its sources beside a ModelNew file whose forward calls the entry point,
//   destination-passing (hone passes its own poisoned output buffers after
//   the inputs: hone_destination_passing) or value-returning.
//
// Both embed python/hone_flashinfer.py's helpers after a marker line
// (kHelpersMarker) so that they import nothing of hone's; prompts show the
// problem file above it only. Failure: Status::Invalid naming the solution
// and what cannot run (a binding or language hone does not take), Io for
// files that cannot be written.
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "core/status.h"
#include "format/flashinfer_trace.h"
#include "task/problem_text.h"

namespace hone::flashinfer {

inline constexpr const char* kHelpersMarker =
    "# ---- hone: the format's helpers (python/hone_flashinfer.py), not part of the problem ----";
// Prompts show a problem up to this line (task/problem_text.h).
static_assert(std::string_view(kHelpersMarker).ends_with(kNotPartOfTheProblemMarker));

// What the ModelNew of a value-returning solution raises for an output of
// the wrong shape or dtype (FlashInfer-Trace's INCORRECT_SHAPE and
// INCORRECT_DTYPE).
inline constexpr const char* kWrongShape = "has the wrong shape";
// The compat runner's words for a returned output of the wrong shape
// (python/hone_compat.py), an incorrect verdict.
inline constexpr const char* kReturnedShape = "ModelNew returned shape";
inline constexpr const char* kWrongDtype = "has the wrong dtype";

// "batch_size=7 (workload 0b6e1f2a)".
std::string WorkloadLabel(const Workload& w);

// Writes (or finds, by content) the problem file of `w` under `cache`;
// `root` is the dataset folder safetensors paths are relative to.
Result<std::filesystem::path> WriteProblemFile(const Definition& def, const Workload& w,
                                               const std::filesystem::path& root,
                                               const std::filesystem::path& cache);

struct WrittenSolution {
  std::filesystem::path modelnew;  // the file hone evaluates
  std::set<std::string> allow;     // lint rules the language implies ("library" for python)
  std::string note;                // what hone made of the solution, for the verdict
};

// Writes (or finds) a solution's sources and its ModelNew file under `cache`.
Result<WrittenSolution> WriteSolutionFiles(const Solution& s, const Definition& def,
                                           const std::filesystem::path& cache);

}  // namespace hone::flashinfer
