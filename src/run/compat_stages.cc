#include "run/compat_stages.h"

#include "run/compat_sandbox.h"
#include "run/reason_text.h"

namespace hone {

Status CompatStages::Prebuild(const std::filesystem::path& candidate) {
  s_.Progress("prebuild");
  if (!prebuilder_) return Status::Internal("a compat candidate needs the evaluator's prebuilder");
  HONE_ASSIGN_OR_RETURN(CompatPrebuild p, prebuilder_->Prebuild(candidate));
  prebuild_ = std::move(p);
  const CompatScan& scan = prebuild_->scan;
  if (!scan.ok) {
    s_.Decide(VerdictStatus::kCompileError, "the ModelNew file does not parse: " + scan.error);
    return Status::Ok();
  }
  if (!scan.model_new.defined) {
    s_.Decide(VerdictStatus::kCompileError,
              "not a KernelBench ModelNew file: it defines no ModelNew at module level");
    return Status::Ok();
  }
  std::vector<std::string>& kernels = s_.cand.kernels;
  kernels = scan.kernels;
  kernels.insert(kernels.end(), scan.triton_kernels.begin(), scan.triton_kernels.end());
  for (const auto& note : prebuild_->notes) s_.v.notes.push_back(note);
  RecordBuilds();
  if (const PrebuiltExtension* bad = prebuild_->fatal_failure()) {
    s_.Decide(VerdictStatus::kCompileError,
              "the candidate does not compile: " + bad->call.call + "('" + bad->call.name +
                  "') at line " + std::to_string(bad->call.line) + " failed:\n" + bad->log);
  }
  return Status::Ok();
}

void CompatStages::RecordBuilds() {
  Verdict& v = s_.v;
  v.build_cached = prebuild_->all_cached();
  v.build_seconds = prebuild_->seconds;
  for (const auto& e : prebuild_->extensions) {
    v.build_log +=
        e.call.call + "('" + e.call.name + "') at line " + std::to_string(e.call.line) + ": " +
        (e.ok ? (e.cached ? "built earlier (cache)" : "built by hone in " + Seconds(e.seconds))
              : "failed to build:\n" + e.log) +
        "\n";
  }
}

// KernelBench generations that only call PyTorch are the classic
// non-answer; on a GPU the run-time launch checks see the rest.
void CompatStages::Lint() {
  const CompatScan& scan = prebuild_->scan;
  if (!scan.builds_extension && !s_.LibraryAllowed()) {
    std::string detail =
        "launches no kernel of its own: ModelNew builds no extension (load_inline, "
        "cpp_extension.load or Triton) and only calls PyTorch; allow rule 'library' to score it";
    s_.v.checks.push_back({"lint", "source", false, detail});
    s_.Decide(VerdictStatus::kRejected, "lint: " + detail);
    return;
  }
  std::string kernels;
  for (const auto& k : s_.cand.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
  s_.v.checks.push_back(
      {"lint", "source", true,
       "compat candidate" + (kernels.empty() ? std::string(" (no CUDA kernel found in its source)")
                                             : "; its kernels: " + kernels)});
}

Result<std::filesystem::path> CompatStages::WriteShim(const std::filesystem::path& candidate) {
  CompatShimOptions o;
  for (const auto& [key, library] : prebuild_->libraries()) {
    HONE_ASSIGN_OR_RETURN(o.prebuilt[key], SandboxReadable(library));
  }
  o.failed_builds = prebuild_->failures();
  HONE_ASSIGN_OR_RETURN(
      std::filesystem::path shim,
      WriteCompatShim(s_.task, candidate, *s_.compat_runtime, s_.env.scratch_root / "compat", o));
  s_.shim_options = std::move(o);
  return shim;
}

}  // namespace hone
