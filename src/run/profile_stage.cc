#include "run/profile_stage.h"

#include <algorithm>
#include <cmath>

#include "measure/profile_judge.h"
#include "process/sandbox_process.h"
#include "tools/cpu_counters.h"

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
  std::unique_ptr<Profiler> profiler = s_.backend.MakeProfiler();
  if (!profiler) report.not_run = "the " + s_.backend.traits().label + " backend has no profiler";
  if (report.ran()) {
    report.case_label = s_.cases.front().c->label;
    s_.Progress("profile " + report.case_label);
    // The verdict stands whatever happens to its profile: a failure of the
    // worker's own here (the reference, a scratch file) is the profile's.
    Status st = LoadTimedInputs();
    if (st.ok()) st = profiler->Profile(s_, runner_, library, report);
    if (!st.ok()) report.not_run = "profiling failed: " + st.message();
  }
  if (report.ran()) {
    JudgeContext context;
    context.host_counters = profiler->host_counters();
    context.sol_percent = s_.v.timing.sol_percent;
    context.ideal_bytes = IdealBytes(s_);
    context.cores =
        context.host_counters && s_.opt.threads > 0 ? s_.opt.threads : s_.backend.machine().cores;
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

namespace {

class HostCountersProfiler : public Profiler {
 public:
  bool host_counters() const override { return true; }
  Status Profile(RunState& s, CandidateRunner& runner, const std::filesystem::path&,
                 ProfileReport& report) override;
};

Status HostCountersProfiler::Profile(RunState& s, CandidateRunner& runner,
                                     const std::filesystem::path&, ProfileReport& report) {
  report.tool = "perf_event";
  SandboxProcess& sandbox = *s.cand.sandbox;
  CpuCounters counters;
  bool opened = counters.Open(sandbox.pid());
  report.missing = counters.missing();
  int calls = CpuCalls(s.v);
  // Profiling calls are calls like any: one that fails decides the verdict.
  // They are not started when the evaluation's time might run out in them.
  double median = s.v.timing.candidate_time ? s.v.timing.candidate_time->summary.median : 0;
  double left = std::chrono::duration<double>(s.deadline - RunState::Clock::now()).count();
  if (left < 4 * calls * median + 2) {
    report.not_run = "too little of the evaluation's time left to profile";
    return Status::Ok();
  }
  uint64_t cpu_before = sandbox.SettledCpuNanos();
  double wall = 0, reported = 0;
  counters.Start();
  for (int i = 0; i < calls; ++i) {
    CallOutcome o;
    auto t0 = RunState::Clock::now();
    if (!runner.Call(0, 0, "profiling call " + std::to_string(i + 1), &o)) {
      report.not_run = "a profiling call failed: " + s.v.reason;
      return Status::Ok();
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
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Profiler> MakeHostCountersProfiler() {
  return std::make_unique<HostCountersProfiler>();
}

// Here rather than in run/backend.h, which names Profiler without its
// definition: a backend has no profiler unless it says which.
std::unique_ptr<Profiler> Backend::MakeProfiler() const { return nullptr; }

}  // namespace hone
