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
    for (int k = 0; k < sides; ++k) {
      int s = (rep + k) % sides;
      double t = 0;
      if (!sample(s, rep, true, &t)) return TimerStop::kFailed;
      if (!std::isnan(t)) samples_[s].push_back(t);
    }
    if (rep + 1 >= p.max_reps) return TimerStop::kMaxReps;
    size_t n = samples_[0].size();
    for (const auto& v : samples_) n = std::min(n, v.size());
    if (n >= static_cast<size_t>(p.min_reps)) {
      bool precise = true;
      for (const auto& v : samples_) precise = precise && Summarize(v).rse <= p.target_rse;
      if (precise) return TimerStop::kPrecise;
    }
    if (since(start) >= p.budget_seconds && n >= static_cast<size_t>(p.min_reps))
      return TimerStop::kBudget;
  }
}

}  // namespace hone
