#include "run/candidate_runner.h"

#include <algorithm>

#include "compat/compat_candidate.h"
#include "core/wording.h"

namespace hone {

using Millis = std::chrono::milliseconds;

Status CandidateRunner::BindCase(const CaseShapes& cs, ReferenceSource& reference) {
  const int slots = s_.plan.input_sets;
  s_.cand.sets.assign(static_cast<size_t>(slots), {});
  PlaceCandidateSets(s_.task, cs, slots, &s_.cand.sets);
  HONE_RETURN_IF_ERROR(FillGuards());
  HONE_RETURN_IF_ERROR(reference.Bind(cs));
  // Before the case's first call: a shared device lengthens its limit.
  checks_.sharing().ReadNeighbours();
  checks_.PauseIdleCount();
  struct Resume {
    CandidateChecks& checks;
    ~Resume() { checks.ResumeIdleCount(); }
  } resume{checks_};
  for (int s = 0; s < slots; ++s) {
    const SetLayout& l = s_.cand.sets[static_cast<size_t>(s)];
    CallOutcome o = s_.cand.sandbox->Bind(static_cast<uint32_t>(s), Slots(l.inputs),
                                          Slots(l.outputs), s_.opt.max_call_timeout);
    if (!o.ok()) {
      Fail(o, "in hone_workspace_bytes for case " + cs.c->label);
      return Status::Ok();
    }
    s_.cand.workspace_bytes = o.aux;
  }
  return Status::Ok();
}

Status CandidateRunner::FillGuards() {
  Arena& arena = *s_.cand.arena;
  s_.cand.guards = GuardSpans(CandidateBuffers(s_.cand.sets, -1, nullptr), arena.size());
  for (const ArenaSpan& g : s_.cand.guards) arena.Fill(g.offset, s_.cand.canary, g.bytes);
  return arena.Sync();
}

// Beside another process a call can stall far longer than the reference's
// time predicts (on an H100 beside a copy loop, a kernel's __trap took over
// 2 s to come back as an error), so there the longest limit applies.
Millis CandidateRunner::PerCallTimeout() {
  const EvalOptions& opt = s_.opt;
  Millis per_call = opt.max_call_timeout;
  if (s_.ref_seconds_max > 0 && !checks_.sharing().shared()) {
    double ms = s_.ref_seconds_max * 1e3 * opt.call_timeout_factor;
    per_call = Millis(static_cast<int64_t>(
        std::clamp<double>(ms, opt.min_call_timeout.count(), opt.max_call_timeout.count())));
  }
  return per_call;
}

bool CandidateRunner::Call(int set, uint32_t flags, const std::string& during, CallOutcome* out,
                           uint64_t rng_seed) {
  checks_.BeforeCall();
  Millis per_call = PerCallTimeout();
  Millis left =
      std::max(Millis(1), std::chrono::duration_cast<Millis>(s_.deadline - RunState::Clock::now()));
  limited_by_total_ = left < per_call;
  last_call_timeout_ = std::min(per_call, left);
  if (Status st = s_.cand.arena->Sync(); !st.ok()) {
    s_.env_failure = st;
    return false;
  }
  if (!s_.StoreHealthy()) return false;
  SandboxProcess& sandbox = *s_.cand.sandbox;
  *out = sandbox.Call(static_cast<uint32_t>(set), flags, last_call_timeout_, rng_seed);
  if (s_.compat && out->ok() && (out->rc == kCompatLoadFailed || out->rc == kCompatCallFailed)) {
    DecideCompatFailure(out->rc, during);
    return false;
  }
  if (!out->ok() || out->rc != 0) {
    Fail(*out, during);
    return false;
  }
  if (!checks_.CheckReportWithinWall(*out, during)) return false;
  s_.v.kernel_seconds += out->reported_seconds;
  if (s_.compat && out->marked && !checks_.CheckPostMark(*out, set, during)) return false;
  if (s_.backend.traits().launch_tracking) return checks_.CheckGpuCall(*out, during);
  if (s_.compat && !checks_.CheckNoFallback(during)) return false;
  checks_.AfterHostCall(*out);
  return true;
}

// What the runner said of the failure (python/hone_compat.py's events):
// the exception and the user's line, not a return code.
void CandidateRunner::DecideCompatFailure(int rc, const std::string& during) {
  const std::string& log = s_.cand.sandbox->log();
  CompatEvents events = ReadCompatEvents(log, &s_.language);
  const auto& failure = rc == kCompatLoadFailed ? events.load_failed : events.call_failed;
  if (failure) {
    s_.Decide(failure->status, failure->reason + (rc == kCompatCallFailed ? " " + during : ""));
  } else if (rc == kCompatLoadFailed) {
    s_.Decide(VerdictStatus::kCompileError,
              "the ModelNew file failed to load (its extension build or ModelNew's constructor); "
              "its output ends:\n" +
                  log.substr(log.size() > 3000 ? log.size() - 3000 : 0));
  } else {
    s_.Decide(VerdictStatus::kRuntimeError,
              "ModelNew's forward failed " + during +
                  " (its runner said nothing of why; its output "
                  "ends:\n" +
                  log.substr(log.size() > 2000 ? log.size() - 2000 : 0) + ")");
  }
  if (s_.v.checks.empty() || s_.v.checks.back().kind() != CheckKind::kCall)
    s_.v.checks.push_back({{CheckKind::kCall}, during, false, s_.v.reason});
}

// A call that failed is a failed check too (named "call", its detail the
// reason), so that the verdict's check counts say so.
void CandidateRunner::Fail(const CallOutcome& o, const std::string& during) {
  bool first = !s_.decided();
  DecideFromOutcome(o, during);
  if (first) s_.v.checks.push_back({{CheckKind::kCall}, during, false, s_.v.reason});
}

void CandidateRunner::DecideFromOutcome(const CallOutcome& o, const std::string& during) {
  switch (o.kind) {
    case CallOutcome::Kind::kOk:
      s_.Decide(VerdictStatus::kRuntimeError, "hone_forward returned " + std::to_string(o.rc) +
                                                  " (nonzero means failure) " + during);
      return;
    case CallOutcome::Kind::kCrashed:
      s_.Decide(VerdictStatus::kRuntimeError, "crashed with " + o.detail + " " + during);
      return;
    case CallOutcome::Kind::kTimedOut:
      if (limited_by_total_) {
        s_.Decide(VerdictStatus::kTimeout, "the evaluation's total time limit of " +
                                               Seconds(s_.opt.total_timeout.count() / 1e3) +
                                               " ran out " + during + " (the process was killed)");
        return;
      }
      s_.Decide(VerdictStatus::kTimeout,
                "did not return within " + Seconds(last_call_timeout_.count() / 1e3) + " " +
                    during + " (the process was killed" +
                    (o.detail.empty() ? "" : "; " + o.detail) + ")" + SharedLimitNote());
      return;
    case CallOutcome::Kind::kViolation: {
      std::string hint =
          s_.language.hints.violation_hint ? s_.language.hints.violation_hint(o.syscall) : "";
      // A first call that failed while the module loaded left a JIT's
      // compiling to a later call, which the sandbox forbids: that failure
      // is the cause to name.
      std::string before;
      if (s_.compat)
        for (const auto& failure : ReadCompatEvents(s_.cand.sandbox->log()).failures)
          before += "; before it, " + failure;
      s_.Decide(VerdictStatus::kRejected, "sandbox rule broken " + during + ": " + o.detail +
                                              (hint.empty() ? "" : " (" + hint + ")") + before);
      return;
    }
    case CallOutcome::Kind::kSandboxError:
      s_.Decide(VerdictStatus::kRuntimeError, o.detail + " " + during);
      return;
  }
}

std::string CandidateRunner::SharedLimitNote() {
  if (!checks_.sharing().shared()) return "";
  const int others = checks_.sharing().seen().neighbours.others;
  return "; the device was shared with " + std::to_string(others) + " other process" +
         (others == 1 ? "" : "es") + ", so the limit was the longest one, --call-timeout's";
}

}  // namespace hone
