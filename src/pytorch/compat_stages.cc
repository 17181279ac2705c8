#include "pytorch/compat_stages.h"

#include <algorithm>

#include "build/error_trim.h"
#include "compat/compat_sandbox.h"
#include "core/fs.h"
#include "core/wording.h"
#include "run/lint_stage.h"

namespace hone {

std::optional<std::string> FailsWhateverTheProblem(const CompatScan& scan) {
  if (!scan.ok) return "the ModelNew file does not parse: " + scan.error;
  if (!scan.model_new.defined)
    return "not a KernelBench ModelNew file: it defines no ModelNew at module level";
  return std::nullopt;
}

Status CompatStages::Prebuild(const std::filesystem::path& candidate) {
  s_.Progress("prebuild");
  if (!prebuilder_) return Status::Internal("a compat candidate needs the evaluator's prebuilder");
  HONE_ASSIGN_OR_RETURN(CompatPrebuild p, prebuilder_->Prebuild(candidate));
  prebuild_ = std::move(p);
  const CompatScan& scan = prebuild_->scan;
  if (auto failure = FailsWhateverTheProblem(scan)) {
    s_.Decide(VerdictStatus::kCompileError, *failure);
    return Status::Ok();
  }
  std::vector<std::string>& kernels = s_.cand.kernels;
  kernels = scan.kernels;
  kernels.insert(kernels.end(), scan.triton_kernels.begin(), scan.triton_kernels.end());
  for (const auto& k : scan.dsl_kernels)
    if (std::find(kernels.begin(), kernels.end(), k) == kernels.end()) kernels.push_back(k);
  for (const Note& note : prebuild_->notes) s_.v.AddNote(note);
  RecordBuilds();
  if (const PrebuiltExtension* bad = prebuild_->fatal_failure()) {
    s_.Decide(VerdictStatus::kCompileError,
              "the candidate does not compile: " + bad->call.call + "('" + bad->call.name +
                  "') at line " + std::to_string(bad->call.line) +
                  " failed: " + FirstCompilerError(bad->log) + "\n" + bad->log);
  }
  return Status::Ok();
}

void CompatStages::RecordBuilds() {
  Verdict& v = s_.v;
  v.build.cached = prebuild_->all_cached();
  v.build.seconds = prebuild_->seconds;
  for (const auto& e : prebuild_->extensions) {
    v.build.log +=
        e.call.call + "('" + e.call.name + "') at line " + std::to_string(e.call.line) + ": " +
        (e.ok ? (e.cached ? "built earlier (cache)" : "built by hone in " + Seconds(e.seconds))
              : "failed to build:\n" + e.log) +
        "\n";
  }
}

// The scan's findings (CompatScan::AllFindings) under the language's rules;
// on a GPU the run-time launch checks see the rest.
void CompatStages::Lint() {
  const std::vector<LintFinding> findings = prebuild_->scan.AllFindings();
  std::string kernels;
  for (const auto& k : s_.cand.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
  ApplyLint(s_, findings,
            s_.language.label + " candidate" +
                (kernels.empty() ? std::string(" (no kernel found in its source)")
                                 : "; its kernels: " + kernels));
}

Result<std::filesystem::path> CompatStages::WriteShim(const std::filesystem::path& candidate) {
  CompatShimOptions o;
  for (const auto& [key, library] : prebuild_->libraries()) {
    HONE_ASSIGN_OR_RETURN(o.prebuilt[key], SandboxReadable(library));
  }
  o.failed_builds = prebuild_->failures();
  o.language = s_.language.name;
  if (s_.loader) {
    HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(candidate));
    s_.loader->Configure(source, o.runner_config, o.read_dirs);
  }
  HONE_RETURN_IF_ERROR(AddProblemFolder(s_.task, o));
  HONE_RETURN_IF_ERROR(AddCandidateFile(candidate, o));
  HONE_ASSIGN_OR_RETURN(
      std::filesystem::path shim,
      WriteCompatShim(s_.task, candidate, *s_.compat_runtime, s_.env.scratch_root / "compat", o));
  s_.shim_options = std::move(o);
  return shim;
}

}  // namespace hone
