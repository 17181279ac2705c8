#include "measure/device_sharing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/quantile.h"
#include "core/wording.h"

namespace hone {
namespace {

std::vector<double> Waits(const DeviceSharing& s) {
  std::vector<double> out;
  for (const SharingProbe& p : s.probes) out.push_back(p.wait_seconds);
  return out;
}

}  // namespace

double DeviceSharing::WaitMedian() const { return NearestRankQuantile(Waits(*this), 0.5); }
double DeviceSharing::WaitLow() const { return NearestRankQuantile(Waits(*this), 0.1); }
double DeviceSharing::WaitHigh() const { return NearestRankQuantile(Waits(*this), 0.9); }

double DeviceSharing::CopySlowdown() const {
  std::vector<double> copies;
  for (const SharingProbe& p : probes)
    if (p.copy_seconds > 0) copies.push_back(p.copy_seconds);
  if (copies.empty() || idle_copy_seconds <= 0) return 1;
  return std::max(1.0, NearestRankQuantile(copies, 0.5) / idle_copy_seconds);
}

std::string DeviceSharing::Describe() const {
  if (!shared()) return "";
  std::string s = fmt::format("the GPU was shared: {} other process{}", neighbours.others,
                              neighbours.others == 1 ? "" : "es");
  if (neighbours.others_bytes > 0)
    s += fmt::format(" ({:.1f} GB)", static_cast<double>(neighbours.others_bytes) / 1e9);
  if (probes.empty()) return s;
  s += fmt::format(
      "; hone's own probe calls waited {} for it (median of {}; {} to {} from the "
      "10th to the 90th percentile)",
      Seconds(WaitMedian()), probes.size(), Seconds(WaitLow()), Seconds(WaitHigh()));
  if (const double slowdown = CopySlowdown(); slowdown > 1.05)
    s += fmt::format(" and copied at {:.0f}% of this machine's bandwidth", 100 / slowdown);
  return s;
}

SharedJudgement JudgeBesideNeighbours(double measured, double idle_allowed, double shared_extra,
                                      double busy_extra, bool shared) {
  if (measured <= idle_allowed) return SharedJudgement::kWithin;
  if (!shared) return SharedJudgement::kExceeded;
  if (measured <= idle_allowed + shared_extra) return SharedJudgement::kWithinShared;
  if (measured <= idle_allowed + std::max(busy_extra, shared_extra)) return SharedJudgement::kBusy;
  return SharedJudgement::kExceeded;
}

// Hidden work shifts every call by its time; waiting for a neighbour's slice
// adds what the probes saw. The candidate's median gap and the probes'
// median wait are two medians of one distribution: they differ by at most
// its spread, and by twice it cannot be told from work.
SharedAllowance WaitAllowance(const DeviceSharing& sharing) {
  if (!sharing.shared()) return {};
  const double spread = sharing.WaitHigh() - sharing.WaitLow();
  const double level = sharing.WaitMedian();
  return {level + spread, level + 2 * spread};
}

SharedAllowance CopyAllowance(const DeviceSharing& sharing, double idle_copy_seconds) {
  if (!sharing.shared()) return {};
  const double slowed = idle_copy_seconds * (sharing.CopySlowdown() - 1);
  const SharedAllowance wait = WaitAllowance(sharing);
  return {slowed + wait.within, 2 * slowed + wait.busy};
}

namespace {

// ShiftBound of samples already in ascending order.
double ShiftBoundOfSorted(const std::vector<double>& cand, const std::vector<double>& base,
                          double band) {
  const double n = static_cast<double>(cand.size()), m = static_cast<double>(base.size());
  double bound = -std::numeric_limits<double>::infinity();
  // At the base's j-th smallest gap its share is j/m: the candidate's share
  // at that gap plus d must reach j/m - band, so d is at least the
  // candidate's k-th smallest gap less the base's j-th, k = ceil(n (j/m - band)).
  for (size_t j = 1; j <= base.size(); ++j) {
    const double k = std::ceil(n * (static_cast<double>(j) / m - band) - 1e-9);
    if (k < 1) continue;
    const size_t rank = static_cast<size_t>(std::min(k, n));
    bound = std::max(bound, cand[rank - 1] - base[j - 1]);
  }
  return bound;
}

// Of samples in ascending order: how far the candidate's least lies from the
// nearest of the base's.
double LeastApart(const std::vector<double>& cand, const std::vector<double>& base) {
  const double least = cand.front();
  if (least <= base.front()) return least - base.front();
  double apart = std::numeric_limits<double>::infinity();
  for (double b : base) apart = std::min(apart, std::abs(least - b));
  return apart;
}

double LogChoose(double n, double k) {
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

// For n and m gaps of one distribution: the least k for which the
// candidate's k-th largest lies above the base's second largest with
// probability at most `rarity` (at least k of the k + 1 largest of all
// n + m are the candidate's); 0 when no k is that rare.
size_t RareTopRank(size_t n, size_t m, double rarity) {
  if (m < 2) return 0;
  const double dn = static_cast<double>(n), dm = static_cast<double>(m);
  for (size_t k = 1; k <= n; ++k) {
    const double dk = static_cast<double>(k);
    const double all = LogChoose(dn + dm, dk + 1);
    double p = std::exp(LogChoose(dn, dk) + std::log(dm) - all);
    if (k + 1 <= n) p += std::exp(LogChoose(dn, dk + 1) - all);
    if (p <= rarity) return k;
  }
  return 0;
}

// Of samples in ascending order: the candidate's `k`-th largest less the
// base's second largest.
double TopOver(const std::vector<double>& cand, const std::vector<double>& base, size_t k) {
  if (k == 0) return -std::numeric_limits<double>::infinity();
  return cand[cand.size() - k] - base[base.size() - 2];
}

}  // namespace

double ShiftBound(std::vector<double> cand, std::vector<double> base, double band) {
  if (cand.empty() || base.empty()) return 0;
  std::sort(cand.begin(), cand.end());
  std::sort(base.begin(), base.end());
  return ShiftBoundOfSorted(cand, base, band);
}

GapShift CompareGaps(std::vector<double> cand, std::vector<double> base) {
  if (cand.empty() || base.empty()) return {};
  std::sort(cand.begin(), cand.end());
  std::sort(base.begin(), base.end());
  const double n = static_cast<double>(cand.size()), m = static_cast<double>(base.size());
  const double effective = n * m / (n + m);
  // P(one-sided excess over band) ~ exp(-2 n_eff band^2): 1e-3 and 1e-6.
  const double pass_band = std::min(0.3, std::sqrt(std::log(1e3) / (2 * effective)));
  const double reject_band = std::sqrt(std::log(1e6) / (2 * effective));
  const size_t top_rank = RareTopRank(cand.size(), base.size(), 1e-6);
  return {ShiftBoundOfSorted(cand, base, pass_band), ShiftBoundOfSorted(cand, base, reject_band),
          LeastApart(cand, base), TopOver(cand, base, top_rank), top_rank};
}

SharedJudgement JudgeGapsBeside(const GapShift& shift, double idle_allowed, double median_extra,
                                bool against_reference) {
  const bool off_the_base = shift.reject > idle_allowed && shift.least_apart > idle_allowed;
  // top_over is itself a one-in-a-million bound, so the narrow band suffices.
  const bool above_the_base =
      against_reference && shift.pass > idle_allowed && shift.top_over > idle_allowed;
  if (off_the_base || above_the_base) return SharedJudgement::kExceeded;
  if (shift.pass > idle_allowed) return SharedJudgement::kBusy;
  return median_extra <= idle_allowed ? SharedJudgement::kWithin : SharedJudgement::kWithinShared;
}

std::string DescribeGapRanks(const std::vector<double>& cand, const std::vector<double>& base,
                             const std::string& base_name) {
  auto ranks = [](const std::vector<double>& v) {
    if (v.empty()) return std::string("none");
    std::string out;
    for (double q : {0.0, 0.1, 0.5, 0.9, 1.0})
      out += (out.empty() ? "" : " / ") + Seconds(NearestRankQuantile(v, q));
    return out + " (" + std::to_string(v.size()) + ")";
  };
  return "the worker's clock beyond the reports per call (least / 10th / median / 90th "
         "percentile / most, and how many): the candidate's " +
         ranks(cand) + "; " + base_name + " " + ranks(base);
}

std::vector<double> ProbeWaitsAboveLeast(const DeviceSharing& sharing) {
  std::vector<double> waits = Waits(sharing);
  if (waits.empty()) return waits;
  const double least = *std::min_element(waits.begin(), waits.end());
  for (double& w : waits) w -= least;
  return waits;
}

}  // namespace hone
