// The --sanitize stage of an evaluation: compute-sanitizer (tools/sanitize.h)
// over one call of a CUDA candidate on the task's smallest case, after
// verification and never while timing, its inputs a value set of the
// reference source's. The result goes into Verdict::sanitizer: memcheck
// errors fail the verdict (runtime_error), racecheck's and initcheck's are
// notes. A CPU candidate, one of a language the tool cannot run, a ModelNew
// file that defines no kernel of its own (SanitizerSkipReason), or a machine
// without the tool gets Verdict::Sanitizer::not_run saying why.
//
// Status is for the worker's own failures (the reference, its files).
// Borrows everything; not thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "run/candidate_runner.h"
#include "run/reference_source.h"
#include "run/run_state.h"
#include "tools/sanitize.h"

namespace hone {

// Why compute-sanitizer does not run a candidate of `language` on
// `backend` whose source defines `kernels` (`compat`: a ModelNew file), or
// "" when it does.
std::string SanitizerSkipReason(const BackendTraits& backend, const Language& language, bool compat,
                                const std::vector<std::string>& kernels);

// compute-sanitizer's filter for a ModelNew file whose source defines
// `kernels`: one --kernel-name per kernel (the tool checks a kernel that
// any of them matches; kns= matches a substring of the mangled name, so
// a template or namespaced kernel is found by its plain name), so torch's
// own kernels (the inputs' draw, the copies) run unchecked and at full
// speed. Empty (check everything) when `kernels` is.
std::vector<std::string> CompatKernelFilter(const std::vector<std::string>& kernels);

class SanitizeStage {
 public:
  SanitizeStage(RunState& state, CandidateRunner& runner, ReferenceSource& reference)
      : s_(state), runner_(runner), reference_(reference) {}

  // `library`: the candidate, built.
  Status Run(const std::filesystem::path& library);

 private:
  // The job for the candidate's slot 0 of the bound case, whose inputs are
  // in its arena: they are written into `scratch` for the standalone call.
  Result<SanitizeJob> MakeJob(const std::filesystem::path& tool,
                              const std::filesystem::path& library,
                              const std::filesystem::path& scratch);
  void RecordFindings(const Verdict::Sanitizer& report, const std::string& label);

  RunState& s_;
  CandidateRunner& runner_;
  ReferenceSource& reference_;
};

}  // namespace hone
