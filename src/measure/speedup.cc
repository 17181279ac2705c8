#include "measure/speedup.h"

#include <fmt/format.h>

#include <cmath>

namespace hone {

namespace {

std::string RseShortfall(const char* side, const SampleSummary& x, double target_rse) {
  if (x.rse <= target_rse) return "";
  if (!std::isfinite(x.rse)) return fmt::format("the {} has too few samples", side);
  return fmt::format("the {}'s relative standard error is {:.1f}% (target {:.1f}%)", side,
                     100 * x.rse, 100 * target_rse);
}

std::string IncludesOne(const SpeedupInterval& s) {
  if (s.low <= 1 && s.high >= 1)
    return fmt::format("its 95% interval {:.2f}x .. {:.2f}x includes 1", s.low, s.high);
  return "";
}

void Join(std::string& why, const std::string& part) {
  if (!part.empty()) why += (why.empty() ? "" : "; ") + part;
}

}  // namespace

SpeedupInterval ResolveSpeedup(const SampleSummary& baseline, const SampleSummary& candidate,
                               double target_rse) {
  SpeedupInterval s;
  if (baseline.ci_low <= 0 || candidate.ci_low <= 0 || candidate.ci_high <= 0) {
    s.unresolved = "too few timing samples for an interval";
    return s;
  }
  s.low = baseline.ci_low / candidate.ci_high;
  s.high = baseline.ci_high / candidate.ci_low;
  std::string why = IncludesOne(s);
  Join(why, RseShortfall("candidate", candidate, target_rse));
  Join(why, RseShortfall("baseline", baseline, target_rse));
  s.unresolved = why;
  return s;
}

SpeedupInterval ResolvePairedSpeedup(const SampleSummary& ratios, double target_rse) {
  SpeedupInterval s;
  if (ratios.ci_low <= 0 || ratios.ci_high <= 0) {
    s.unresolved = "too few paired repetitions for an interval";
    return s;
  }
  s.low = ratios.ci_low;
  s.high = ratios.ci_high;
  s.unresolved = IncludesOne(s);
  Join(s.unresolved, RseShortfall("paired ratio", ratios, target_rse));
  return s;
}

}  // namespace hone
