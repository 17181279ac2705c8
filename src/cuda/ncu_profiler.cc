#include "cuda/ncu_profiler.h"

#include <algorithm>
#include <chrono>

#include "run/standalone_tensors.h"
#include "tools/cuda_tools.h"
#include "tools/ncu_profile.h"

namespace hone {
namespace {

class NcuProfiler : public Profiler {
 public:
  bool host_counters() const override { return false; }
  Status Profile(RunState& s, CandidateRunner& runner, const std::filesystem::path& library,
                 ProfileReport& report) override;
};

Status NcuProfiler::Profile(RunState& s, CandidateRunner&, const std::filesystem::path& library,
                            ProfileReport& report) {
  std::optional<std::filesystem::path> ncu = FindCudaTool("ncu");
  if (!ncu) {
    report.not_run = "ncu (Nsight Compute) not found (PATH, CUDA_HOME/bin, /usr/local/cuda/bin)";
    return Status::Ok();
  }
  ToolScratch scratch, reports;
  std::string error;
  if (!scratch.Create("hone-profile", &error) ||
      !reports.Create("hone-profile-report", &error, /*sandbox_writes=*/false))
    return Status::Internal(error);
  NcuJob job;
  job.ncu = *ncu;
  job.report_dir = reports.path();
  // Within what is left of the evaluation's time.
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.deadline - RunState::Clock::now());
  job.timeout = std::max(std::chrono::milliseconds(1000), std::min(ProfileTimeout(), left));
  HONE_ASSIGN_OR_RETURN(job.call, PrepareStandaloneCall(s, library, scratch.path()));
  if (job.call.compat) {
    job.between_profiler_marks = true;
    job.call.env.push_back("HONE_PROFILE_FORWARD=1");
  }
  std::string label = report.case_label;
  report = RunNcu(job);
  report.case_label = label;
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Profiler> MakeNcuProfiler() { return std::make_unique<NcuProfiler>(); }

}  // namespace hone
