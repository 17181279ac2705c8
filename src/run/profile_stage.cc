#include "run/profile_stage.h"

#include <algorithm>
#include <cmath>

#include "measure/profile_judge.h"
#include "process/sandbox_process.h"
#include "run/standalone_tensors.h"
#include "tools/cpu_counters.h"
#include "tools/cuda_tools.h"
#include "tools/ncu_profile.h"

namespace hone {
namespace {

// CPU: enough calls for the counters to cover about a quarter of a second.
int CpuCalls(const Verdict& v) {
  double median = v.timing.candidate_time ? v.timing.candidate_time->summary.median : 0;
  if (median <= 0) return 3;
  return static_cast<int>(std::clamp(std::ceil(0.25 / median), 3.0, 200.0));
}

double IdealBytes(const RunState& s) {
  if (!s.task.cost_bytes || s.cases.empty()) return 0;
  auto bytes = s.task.cost_bytes->Eval(s.cases.front().c->symbols);
  return bytes.ok() ? *bytes : 0;
}

}  // namespace

Status ProfileStage::Run(const std::filesystem::path& library) {
  ProfileReport& report = s_.v.profile.emplace();
  auto started = RunState::Clock::now();
  const std::string& profiler = s_.backend.traits().profiler;
  if (profiler.empty())
    report.not_run = "the " + s_.backend.traits().label + " backend has no profiler";
  if (report.ran()) {
    report.case_label = s_.cases.front().c->label;
    s_.Progress("profile " + report.case_label);
    // The verdict stands whatever happens to its profile: a failure of the
    // worker's own here (the reference, a scratch file) is the profile's.
    Status st = LoadTimedInputs();
    if (st.ok() && profiler == "ncu") st = ProfileGpu(library, report);
    if (st.ok() && profiler != "ncu") ProfileCpu(report);
    if (!st.ok()) report.not_run = "profiling failed: " + st.message();
  }
  if (report.ran()) {
    JudgeContext context;
    context.host_counters = profiler != "ncu";
    context.sol_percent = s_.v.timing.sol_percent;
    context.ideal_bytes = IdealBytes(s_);
    context.cores =
        profiler != "ncu" && s_.opt.threads > 0 ? s_.opt.threads : s_.backend.machine().cores;
    report.diagnosis = JudgeProfile(report, context);
  }
  if (report.seconds == 0)
    report.seconds = std::chrono::duration<double>(RunState::Clock::now() - started).count();
  return Status::Ok();
}

Status ProfileStage::LoadTimedInputs() {
  HONE_ASSIGN_OR_RETURN(
      RefSet ref,
      reference_.Reference(s_.cases.front(), s_.opt.seed * 1000003ull + 11, 0, 0, false));
  LoadInputs(*s_.store, *s_.cand.arena, s_.cand.sets[0], ref.inputs);
  for (const Ids* ids : {&ref.inputs, &ref.expected, &ref.ref64}) Release(*s_.store, *ids);
  return s_.cand.arena->Sync();
}

Status ProfileStage::ProfileGpu(const std::filesystem::path& library, ProfileReport& report) {
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
      std::chrono::duration_cast<std::chrono::milliseconds>(s_.deadline - RunState::Clock::now());
  job.timeout = std::max(std::chrono::milliseconds(1000), std::min(ProfileTimeout(), left));
  HONE_ASSIGN_OR_RETURN(job.call, PrepareStandaloneCall(s_, library, scratch.path()));
  // A ModelNew's process launches kernels of its own before its forward
  // (loading, constructing the model, the warm-up that autotunes): its shim
  // marks the forward, and ncu profiles that span alone.
  if (job.call.compat) {
    job.between_profiler_marks = true;
    job.call.env.push_back("HONE_PROFILE_FORWARD=1");
  }
  std::string label = report.case_label;
  report = RunNcu(job);
  report.case_label = label;
  return Status::Ok();
}

void ProfileStage::ProfileCpu(ProfileReport& report) {
  report.tool = "perf_event";
  SandboxProcess& sandbox = *s_.cand.sandbox;
  CpuCounters counters;
  bool opened = counters.Open(sandbox.pid());
  report.missing = counters.missing();
  int calls = CpuCalls(s_.v);
  // Profiling calls are calls like any: one that fails decides the verdict.
  // They are not started when the evaluation's time might run out in them.
  double median = s_.v.timing.candidate_time ? s_.v.timing.candidate_time->summary.median : 0;
  double left = std::chrono::duration<double>(s_.deadline - RunState::Clock::now()).count();
  if (left < 4 * calls * median + 2) {
    report.not_run = "too little of the evaluation's time left to profile";
    return;
  }
  uint64_t cpu_before = sandbox.SettledCpuNanos();
  double wall = 0, reported = 0;
  counters.Start();
  for (int i = 0; i < calls; ++i) {
    CallOutcome o;
    auto t0 = RunState::Clock::now();
    if (!runner_.Call(0, 0, "profiling call " + std::to_string(i + 1), &o)) {
      report.not_run = "a profiling call failed: " + s_.v.reason;
      return;
    }
    wall += std::chrono::duration<double>(RunState::Clock::now() - t0).count();
    reported += o.reported_seconds;
  }
  counters.Stop();
  uint64_t cpu_after = sandbox.SettledCpuNanos();
  report.calls = calls;
  if (opened)
    for (const auto& [name, total] : counters.Read()) report.summary[name] = total / calls;
  if (cpu_after > cpu_before)
    report.summary[metric::kTaskClock] = (cpu_after - cpu_before) * 1e-9 / calls;
  // The call's own time where the sandbox reported it, not the round trip
  // around it: for a short kernel the round trip would halve its busy cores.
  report.summary[metric::kWallClock] = (reported > 0 ? reported : wall) / calls;
}

}  // namespace hone
