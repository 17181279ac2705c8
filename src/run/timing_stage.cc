#include "run/timing_stage.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/wording.h"
#include "measure/device_sharing.h"
#include "measure/machine.h"
#include "measure/stats.h"
#include "verify/note_words.h"

namespace hone {

uint32_t TimedCallFlags(FlushMode flush) {
  uint32_t flags = wire::kTimed;
  if (flush == FlushMode::kLlc) flags |= wire::kFlushLlc;
  if (flush == FlushMode::kLines) flags |= wire::kFlushLines;
  return flags;
}

Rng UnpredictableRng() { return Rng(std::random_device{}(), std::random_device{}()); }

void HoldTally::Count(const CallOutcome& o) {
  if (o.hold_timed_out && timed_out_at < 0) timed_out_at = calls;
  ++calls;
  held += o.held ? 1 : 0;
}

std::string HoldTally::Describe(const std::string& who) const {
  return notes::HeldCallsWords(who, held, calls, timed_out_at);
}

TimingStage::TimingStage(RunState& state, CandidateRunner& runner, CandidateChecks& checks,
                         ReferenceSource& reference)
    : s_(state),
      runner_(runner),
      checks_(checks),
      reference_(reference),
      unpredictable_(UnpredictableRng()) {}

Status TimingStage::Run(const CaseShapes& cs) {
  cs_ = &cs;
  s_.v.timing.timed_case = cs.c->label;
  s_.v.timing.flush_mode = FlushModeName(s_.opt.flush);
  s_.Progress("time " + cs.c->label);
  HONE_RETURN_IF_ERROR(runner_.BindCase(cs, reference_));
  if (s_.decided()) return Status::Ok();
  HONE_RETURN_IF_ERROR(Prepare());
  checks_.sharing().ReadNeighbours();
  // Every call below writes only its own slot's outputs; the canaries
  // around all slots are compared once, after the last call.
  StrayWriteWatch canaries(*s_.cand.arena, s_.cand.guards);
  canaries.Before();
  InterleavedTimer timer(cand_side_ + 1);
  Sampler sample = [this](int side, int rep, bool is_timed, double* seconds) {
    return is_timed ? TimedCall(side, rep, seconds) : WarmupCall(side, rep);
  };
  TimerStop stop = timer.Run(Policy(), sample);
  HONE_RETURN_IF_ERROR(failure_);
  if (s_.decided()) return Status::Ok();
  TopUpRechecks(static_cast<int>(timer.samples(cand_side_).size()) + 100000);
  fresh_.Reset(*s_.store);
  HONE_RETURN_IF_ERROR(failure_);
  if (s_.decided()) return Status::Ok();
  if (!checks_.CheckNoStrayWrites(canaries, cs.c->label + " while timed", cand_calls_))
    return Status::Ok();
  NoteHowTimed(stop, timer);
  if (timer.samples(cand_side_).empty()) {
    s_.v.AddNote(notes::NotTimedEveryCallRechecked());
    return Status::Ok();
  }
  Conclude(timer);
  return Status::Ok();
}

// The eager Model timed beside host-bound calls (a PyTorch task whose
// reference is timed here) gives the speedup as the median of paired ratios,
// and at least kPairedMinReps of them: such calls stray by 10-80% now and
// then (a host-side stall on one side of a pair), which ten pairs'
// median does not always outvote (docs/PERFORMANCE.md, "Host-bound calls:
// the CPU they run on").
//
// Beside another process on the device, enough calls that the timing check
// can compare their gaps rank by rank (measure/device_sharing.h).
TimingPolicy TimingStage::Policy() const {
  TimingPolicy p = s_.opt.timing;
  if (checks_.sharing().shared())
    p.min_reps = std::min(std::max(p.min_reps, kSharedMinCalls), std::max(p.max_reps, 1));
  if (!reference_.timed() || !reference_.paired()) return p;
  p.paired = true;
  p.min_reps = std::max(p.min_reps, kPairedMinReps);
  return p;
}

// Warm-up calls use value sets prepared here, each with its expected output
// (run/reference_source.h says which). Timed repetitions get fresh inputs
// drawn from a seed the candidate cannot know, shared by both sides: no
// cache, memorised output or replay can hit, and the reference's outputs on
// the same inputs are the expected values.
Status TimingStage::Prepare() {
  sets_ = s_.plan.input_sets;
  HONE_ASSIGN_OR_RETURN(warmup_, reference_.WarmupSets(*cs_));
  cand_side_ = reference_.timed() ? 1 : 0;
  flags_ = TimedCallFlags(s_.opt.flush);
  fresh_seed_ = unpredictable_.NextU64();
  return Status::Ok();
}

bool TimingStage::Call(int side, int set, const Ids& in, uint64_t rng_seed, bool timed,
                       CallOutcome* o) {
  if (IsReference(side)) {
    failure_ = reference_.CallTimed(set, in, flags_, rng_seed, o);
    return failure_.ok();
  }
  const SetLayout& l = s_.cand.sets[static_cast<size_t>(set)];
  LoadInputs(*s_.store, *s_.cand.arena, l, in);
  Poison(*s_.cand.arena, l, 0xFF);
  ++cand_calls_;
  // On the CPU, the sandbox's CPU time over the request tells time it
  // worked from time it waited for a core (timing_stage.h).
  const bool count_cpu = timed && s_.backend.traits().idle_cpu_check;
  uint64_t cpu_before = count_cpu ? s_.cand.sandbox->CpuNanos() : 0;
  bool ok = runner_.Call(set, flags_, std::string("during timing") + (timed ? "" : " warm-up"), o,
                         rng_seed);
  if (ok && count_cpu)
    call_cpu_seconds_ = static_cast<double>(s_.cand.sandbox->CpuNanos() - cpu_before) * 1e-9;
  if (ok && s_.backend.traits().held_calls) hold_.Count(*o);
  if (ok) s_.NoteHeld(o->held);
  return ok;
}

bool TimingStage::WarmupCall(int side, int rep) {
  const int set = rep % sets_, k = rep % static_cast<int>(warmup_.size());
  const RefSet& values = warmup_[static_cast<size_t>(k)];
  CallOutcome o;
  if (!Call(side, set, values.inputs, values.rng_seed, false, &o)) return false;
  if (IsReference(side)) return true;
  const SetLayout& l = s_.cand.sets[static_cast<size_t>(set)];
  std::string where =
      cs_->c->label + " warm-up call " + std::to_string(rep) + " value set " + std::to_string(k);
  if (!checks_.CheckInputsUnchanged(l, values.inputs, where)) return false;
  Ids actual = CaptureOutputs(*s_.store, *s_.cand.arena, l);
  bool right =
      checks_.CheckOutputs(l, actual, values.expected, where, CheckKind::kTimedOutput, false);
  Release(*s_.store, actual);
  if (right) ++rechecked_;
  return right;
}

bool TimingStage::TimedCall(int side, int rep, double* seconds) {
  const int set = rep % sets_;
  if (fresh_.rep != rep && !DrawFreshInputs(rep)) return false;
  CallOutcome o;
  if (!Call(side, set, fresh_.inputs, fresh_.rng_seed, true, &o)) return false;
  *seconds = Sample(side, o);
  RecordHarnessTime(side, o);
  if (!fresh_.recheck) return true;
  return Recheck(side, set, rep);
}

// Which repetitions are re-checked is drawn like their inputs.
bool TimingStage::DrawFreshInputs(int rep) {
  fresh_.Reset(*s_.store);
  fresh_.rep = rep;
  fresh_.recheck = force_recheck_ || unpredictable_.Uniform() < 1.0 / 3;
  failure_ = reference_.DrawTimedInputs(*cs_, fresh_seed_ + static_cast<uint64_t>(rep), fresh_,
                                        unpredictable_);
  return failure_.ok();
}

double TimingStage::Sample(int side, const CallOutcome& o) {
  double seconds = fresh_.sample ? o.reported_seconds : std::nan("");
  // A compat call held while its work also ran on a side stream the hold
  // does not hold timed only part of it; the sandbox times later calls
  // without the hold.
  if (s_.compat && !IsReference(side) && o.held && (o.side_launches > 0 || o.side_copies > 0)) {
    seconds = std::nan("");
    if (!side_streams_noted_) {
      side_streams_noted_ = true;
      s_.v.AddNote(notes::SideStreamsTimedUnheld());
    }
  }
  return seconds;
}

void TimingStage::RecordHarnessTime(int side, const CallOutcome& o) {
  // A compat call's span after its end-of-forward mark (copying the
  // model's results into hone's outputs: 4 ms for a 6.4 GB output on an
  // H100) is bounded by CheckPostMark, not counted as hidden time here.
  gaps_[side].push_back(o.wall_seconds - o.prepare_seconds - o.reported_seconds -
                        o.post_mark_seconds);
  prepares_[side].push_back(o.prepare_seconds);
  if (IsReference(side)) return;
  if (call_cpu_seconds_ >= 0) {
    cpu_beyond_.push_back(call_cpu_seconds_ - o.prepare_seconds - o.reported_seconds);
    prepare_cpu_.push_back(call_cpu_seconds_ - o.reported_seconds);
  }
  call_cpu_seconds_ = -1;
  launches_.push_back(o.launches);
  if (auto sample = s_.backend.SampleDevice()) gpu_samples_.push_back(*sample);
  // While the candidate's sandbox waits for its next request.
  checks_.sharing().BesideCall();
}

// Whichever side runs second compares the two sides' outputs.
bool TimingStage::Recheck(int side, int set, int rep) {
  const SetLayout& l = s_.cand.sets[static_cast<size_t>(set)];
  std::string where = cs_->c->label + " timed call " + std::to_string(rep) +
                      reference_.TimedInputsWhere(fresh_seed_ + static_cast<uint64_t>(rep));
  if (IsReference(side)) {
    fresh_.reference_ran = true;
    // A PyTorch task's pool set came with the oracle's outputs; those stay
    // the expected ones, the eager Model beside the candidate only timed.
    if (fresh_.expected.empty()) fresh_.expected = reference_.CaptureOutputs(set);
  } else {
    if (!checks_.CheckInputsUnchanged(l, fresh_.inputs, where)) return false;
    fresh_.actual = CaptureOutputs(*s_.store, *s_.cand.arena, l);
  }
  if (fresh_.expected.empty() || fresh_.actual.empty()) return true;
  // Both sides make every repetition's call, on its inputs, before it goes.
  if (reference_.timed() && !fresh_.reference_ran) return true;
  bool right = checks_.CheckOutputs(l, fresh_.actual, fresh_.expected, where,
                                    CheckKind::kTimedOutput, false);
  fresh_.Reset(*s_.store);
  if (!right) return false;
  ++rechecked_;
  ++rechecked_timed_;
  return true;
}

// Random sampling can come up short on few repetitions: top up with pairs
// of calls made exactly like timed ones (the candidate cannot tell them
// apart), all re-checked, so a kernel that skips work whenever timed is
// always caught. Their times are not samples.
void TimingStage::TopUpRechecks(int first_rep) {
  force_recheck_ = true;
  for (int rep = first_rep; rechecked_timed_ < kMinTimedRechecks && !s_.decided(); ++rep) {
    double ignored;
    if (reference_.timed() && !TimedCall(0, rep, &ignored)) break;
    if (!TimedCall(cand_side_, rep, &ignored)) break;
  }
}

void TimingStage::NoteHowTimed(TimerStop stop, const InterleavedTimer& timer) {
  s_.v.checks.push_back({{CheckKind::kTimedOutput},
                         cs_->c->label,
                         true,
                         std::to_string(rechecked_) +
                             " outputs of timed and warm-up calls re-checked; " +
                             reference_.TimedInputsSummary()});
  RunState::TimingNotes& timing = s_.timing_notes;
  timing.held.clear();
  if (hold_.held != hold_.calls)
    timing.held.push_back(
        notes::HeldCalls("the candidate", hold_.held, hold_.calls, hold_.timed_out_at));
  timing.stopped = notes::TimingStopped(TimerStopName(stop), timer.samples(cand_side_).size(),
                                        reference_.timed(), timer.warmup_calls());
}

// A PyTorch task's baselines come from the oracle after the last check
// (the evaluator's baselines stage): timing them here would give work the
// candidate left running time to finish unobserved, and would compete with it.
void TimingStage::Conclude(const InterleavedTimer& timer) {
  checks_.sharing().ReadNeighbours();
  const bool with_reference = reference_.timed();
  TimingResult ref, cand;
  cand.samples = timer.samples(cand_side_);
  cand.summary = Summarize(cand.samples);
  cand.call_overhead = Summarize(gaps_[cand_side_]).median;
  if (with_reference) {
    ref.samples = timer.samples(0);
    ref.summary = Summarize(ref.samples);
    ref.call_overhead = Summarize(gaps_[0]).median;
  }
  s_.v.timing.call_overhead_seconds = cand.call_overhead;
  ReportedTimeBounds bounds;
  bounds.ref_prepare = with_reference ? Summarize(prepares_[0]).median : -1;
  bounds.cand_prepare = Summarize(prepares_[cand_side_]).median;
  bounds.flush_ratio = FlushedBytesRatio();
  bounds.launches = launches_.empty() ? 0 : Summarize(launches_).median;
  if (!cpu_beyond_.empty()) bounds.cand_cpu_beyond = Summarize(cpu_beyond_).median;
  if (!prepare_cpu_.empty()) bounds.cand_prepare_cpu = Summarize(prepare_cpu_).median;
  bounds.cand_gaps = gaps_[cand_side_];
  if (with_reference) bounds.ref_gaps = gaps_[0];
  if (!checks_.CheckReportedTimes(ref, cand, bounds)) return;
  s_.v.timing.candidate_time = cand;
  if (with_reference) {
    s_.v.timing.reference_time = ref;
    if (cand.summary.median > 0) s_.v.timing.speedup = ref.summary.median / cand.summary.median;
    // The eager Model timed beside host-bound calls: paired ratios.
    if (reference_.paired()) {
      s_.v.timing.speedup_pairs = timer.PairedRatios(0, cand_side_);
      if (!s_.v.timing.speedup_pairs.empty())
        s_.v.timing.speedup = Summarize(s_.v.timing.speedup_pairs).median;
    }
  }
  SpeedOfLight(cand.summary.median);
}

double TimingStage::FlushedBytesRatio() const {
  if (s_.opt.flush != FlushMode::kLines) return 1;
  double ref = reference_.FlushedBytes();
  double cand = FlushedBytes(s_.cand.sets[0], s_.cand.workspace_bytes);
  return ref > 0 ? std::max(1.0, cand / ref) : 1.0;
}

void TimingStage::SpeedOfLight(double median) {
  const Task& task = s_.task;
  double bytes = 0, flops = 0;
  if (task.cost_bytes) bytes = task.cost_bytes->Eval(cs_->c->symbols).value();
  if (task.cost_flops) flops = task.cost_flops->Eval(cs_->c->symbols).value();
  Verdict& v = s_.v;
  v.timing.sol_seconds = SpeedOfLightSeconds(bytes, flops, s_.backend.machine());
  if (!gpu_samples_.empty()) v.timing.device_state = Summarize(gpu_samples_);
  if (v.timing.sol_seconds > 0 && median > 0)
    v.timing.sol_percent = 100 * v.timing.sol_seconds / median;
  if (v.timing.sol_percent > 100) v.AddNote(notes::FasterThanLight(v.timing.sol_percent));
}

}  // namespace hone
