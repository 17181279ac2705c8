// The adaptive, interleaved timing loop: warm-up by time, then alternate
// baseline and candidate calls (so drift cancels in their ratio) until the
// relative standard error of both medians is under target, or the budget or
// the repetition cap ends it. Knows nothing of processes: the caller's
// sampler performs one call and reports its duration.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace hone {

struct TimingPolicy {
  double warmup_seconds = 0.1;
  int min_warmup_calls = 2;
  int min_reps = 10;
  int max_reps = 1000;
  double target_rse = 0.01;
  double budget_seconds = 2.0;  // wall time of the measured phase, all sides
  // Two sides whose speedup is their per-repetition ratio (PairedRatios):
  // precise when that ratio's median meets target_rse, whatever each side's
  // own spread (drift they share widens both sides alike).
  bool paired = false;
};

enum class TimerStop { kPrecise, kBudget, kMaxReps, kFailed };
std::string TimerStopName(TimerStop s);

// One call on `side`; returns false when the call failed (the loop stops).
// `timed` is false during warm-up. `seconds` receives the sample; NaN means
// the call was made like a timed one but is not a sample (it still counts as
// a repetition towards max_reps, not towards min_reps).
using Sampler = std::function<bool(int side, int rep, bool timed, double* seconds)>;

class InterleavedTimer {
 public:
  explicit InterleavedTimer(int sides) : samples_(sides) {}
  TimerStop Run(const TimingPolicy& policy, const Sampler& sample);
  const std::vector<double>& samples(int side) const { return samples_[side]; }
  // Per repetition in which every side gave a sample: side `num`'s over side
  // `den`'s. Both calls of a repetition ran moments apart, so drift that
  // both sides share (a host's launch rate, which jumps by a third between
  // regimes lasting a few calls) cancels in each ratio, where a ratio of
  // medians can take its two medians from different regimes.
  std::vector<double> PairedRatios(int num, int den) const;
  int warmup_calls() const { return warmup_calls_; }

 private:
  std::vector<std::vector<double>> samples_;
  std::vector<std::vector<double>> complete_reps_;  // per repetition, every side's sample
  int warmup_calls_ = 0;
};

}  // namespace hone
