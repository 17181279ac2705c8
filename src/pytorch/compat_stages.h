// What a compat candidate (a KernelBench ModelNew .py file) adds to the
// stages of its evaluation, before it is built:
//  - Prebuild: the scan of the file and its extensions built outside the
//    sandbox (compat/compat_prebuild.h), recorded in the verdict; a file that
//    does not parse, defines no ModelNew, or whose extension does not
//    compile outside a try block is a compile_error;
//  - Lint: the static check on the scan (the C++ rules do not apply to
//    Python): unless library calls are allowed, it must build code of its
//    own;
//  - WriteShim: the C++ shim built in place of the file
//    (compat/compat_candidate.h), given the prebuilt extensions where the
//    sandbox can read them.
// The verdict is decided through RunState; Status is for hone's own
// failures (no prebuilder, an unwritable file). Borrows the prebuilder; not
// thread-safe.
#pragma once

#include <filesystem>
#include <optional>

#include "compat/compat_prebuild.h"
#include "run/run_state.h"

namespace hone {

// Why a scanned ModelNew file fails on any problem (it does not parse, or
// defines no ModelNew); nullopt when the problem is needed to decide. The
// reason is the compile_error verdict's.
std::optional<std::string> FailsWhateverTheProblem(const CompatScan& scan);

class CompatStages {
 public:
  CompatStages(RunState& state, CompatPrebuilder* prebuilder)
      : s_(state), prebuilder_(prebuilder) {}

  Status Prebuild(const std::filesystem::path& candidate);
  void Lint();
  // Needs RunState::compat_runtime; sets RunState::shim_options.
  Result<std::filesystem::path> WriteShim(const std::filesystem::path& candidate);

 private:
  // Each extension's build, or why it failed, into the verdict's build log.
  void RecordBuilds();

  RunState& s_;
  CompatPrebuilder* prebuilder_;
  std::optional<CompatPrebuild> prebuild_;  // the candidate's scan and extensions
};

}  // namespace hone
