#include "pytorch/pytorch_stages.h"

#include "pytorch/baseline_stage.h"
#include "pytorch/compat_stages.h"
#include "pytorch/oracle_reference.h"
#include "pytorch/pytorch_timing.h"

namespace hone {
namespace {

class PyTorchStages : public PyTorchPath {
 public:
  PyTorchStages(const PyTorchPathParts& parts, std::unique_ptr<OracleReference> oracle)
      : parts_(parts),
        compat_(parts.state, parts.prebuilder),
        oracle_(std::move(oracle)),
        baselines_(parts.state, parts.launcher, *oracle_) {}

  ReferenceSource& reference() override { return *oracle_; }

  Status Prebuild(const std::filesystem::path& candidate) override {
    return compat_.Prebuild(candidate);
  }
  void LintScan() override { compat_.Lint(); }
  Result<std::filesystem::path> WriteShim(const std::filesystem::path& candidate) override {
    return compat_.WriteShim(candidate);
  }

  void LookUpBaselines() override { baselines_.LookUp(); }
  bool TimesBaselines() const override { return baselines_.has_runs(); }
  bool BaselinesCached() const override { return baselines_.all_cached(); }
  Status BuildBaselines(BuildPool& pool) override { return baselines_.Build(pool); }
  Status SpawnBaselinesIfFitBeside() override { return baselines_.SpawnIfFitBeside(); }
  Status TimeBaselines() override {
    HONE_RETURN_IF_ERROR(baselines_.TimeAll());
    baselines_.Apply();
    return Status::Ok();
  }
  const BaselineTiming* eager_baseline() const override { return baselines_.eager(); }

  Status SpawnSpares(const std::filesystem::path& cand_lib) override {
    cand_lib_ = cand_lib;
    timing_ =
        std::make_unique<PyTorchTiming>(parts_.state, parts_.launcher, parts_.runner, parts_.checks,
                                        *oracle_, baselines_, *oracle_, cand_lib_);
    return timing_->SpawnSpares();
  }
  Status AwaitAllLoads() override { return timing_ ? timing_->AwaitAllLoads() : Status::Ok(); }
  Status TimeInMoreProcesses() override {
    return timing_ ? timing_->TimeInMoreProcesses() : Status::Ok();
  }
  Status TimeBesideTheBaseline() override {
    return timing_ ? timing_->TimeBesideTheBaseline() : Status::Ok();
  }

 private:
  PyTorchPathParts parts_;
  CompatStages compat_;
  std::unique_ptr<OracleReference> oracle_;
  BaselineStage baselines_;
  std::filesystem::path cand_lib_;  // the candidate, built (SpawnSpares)
  // Once the candidate has started (SpawnSpares); goes first.
  std::unique_ptr<PyTorchTiming> timing_;
};

}  // namespace

Result<std::unique_ptr<PyTorchPath>> OpenPyTorchStages(const PyTorchPathParts& parts) {
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<OracleReference> oracle,
                        OracleReference::Open(parts.state));
  return std::unique_ptr<PyTorchPath>(std::make_unique<PyTorchStages>(parts, std::move(oracle)));
}

}  // namespace hone
