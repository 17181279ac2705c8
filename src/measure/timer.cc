#include "measure/timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "measure/stats.h"

namespace hone {

std::string TimerStopName(TimerStop s) {
  switch (s) {
    case TimerStop::kPrecise:
      return "precise";
    case TimerStop::kBudget:
      return "budget";
    case TimerStop::kMaxReps:
      return "max_reps";
    case TimerStop::kFailed:
      return "failed";
  }
  return "unknown";
}

TimerStop InterleavedTimer::Run(const TimingPolicy& p, const Sampler& sample) {
  using Clock = std::chrono::steady_clock;
  const int sides = static_cast<int>(samples_.size());
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto warm_start = Clock::now();
  for (int i = 0; i < p.min_warmup_calls || since(warm_start) < p.warmup_seconds; ++i) {
    for (int s = 0; s < sides; ++s) {
      double ignored;
      if (!sample(s, i, false, &ignored)) return TimerStop::kFailed;
    }
    ++warmup_calls_;
    if (i > 10000) break;
  }
  auto start = Clock::now();
  for (int rep = 0;; ++rep) {
    // Alternate which side goes first so neither always follows the other.
    std::vector<double> this_rep(static_cast<size_t>(sides));
    bool complete = true;
    for (int k = 0; k < sides; ++k) {
      int s = (rep + k) % sides;
      double t = 0;
      if (!sample(s, rep, true, &t)) return TimerStop::kFailed;
      this_rep[static_cast<size_t>(s)] = t;
      complete = complete && !std::isnan(t);
      if (!std::isnan(t)) samples_[s].push_back(t);
    }
    if (complete) complete_reps_.push_back(std::move(this_rep));
    if (rep + 1 >= p.max_reps) return TimerStop::kMaxReps;
    size_t n = samples_[0].size();
    for (const auto& v : samples_) n = std::min(n, v.size());
    if (n >= static_cast<size_t>(p.min_reps)) {
      bool precise = true;
      if (p.paired && sides == 2)
        precise = Summarize(PairedRatios(0, 1)).rse <= p.target_rse;
      else
        for (const auto& v : samples_) precise = precise && Summarize(v).rse <= p.target_rse;
      if (precise) return TimerStop::kPrecise;
    }
    if (since(start) >= p.budget_seconds && n >= static_cast<size_t>(p.min_reps))
      return TimerStop::kBudget;
  }
}

std::vector<double> InterleavedTimer::PairedRatios(int num, int den) const {
  std::vector<double> ratios;
  for (const std::vector<double>& rep : complete_reps_) {
    const double d = rep[static_cast<size_t>(den)];
    if (d > 0) ratios.push_back(rep[static_cast<size_t>(num)] / d);
  }
  return ratios;
}

}  // namespace hone
