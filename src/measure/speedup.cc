#include "measure/speedup.h"

#include <fmt/format.h>

#include <cmath>

namespace hone {

SpeedupInterval ResolveSpeedup(const SampleSummary& baseline, const SampleSummary& candidate,
                               double target_rse) {
  SpeedupInterval s;
  if (baseline.ci_low <= 0 || candidate.ci_low <= 0 || candidate.ci_high <= 0) {
    s.unresolved = "too few timing samples for an interval";
    return s;
  }
  s.low = baseline.ci_low / candidate.ci_high;
  s.high = baseline.ci_high / candidate.ci_low;
  auto rse = [&](const char* side, const SampleSummary& x) -> std::string {
    if (x.rse <= target_rse) return "";
    if (!std::isfinite(x.rse)) return fmt::format("the {} has too few samples", side);
    return fmt::format("the {}'s relative standard error is {:.1f}% (target {:.1f}%)", side,
                       100 * x.rse, 100 * target_rse);
  };
  std::string why;
  if (s.low <= 1 && s.high >= 1)
    why = fmt::format("its 95% interval {:.2f}x .. {:.2f}x includes 1", s.low, s.high);
  for (const auto& part : {rse("candidate", candidate), rse("baseline", baseline)})
    if (!part.empty()) why += (why.empty() ? "" : "; ") + part;
  s.unresolved = why;
  return s;
}

}  // namespace hone
