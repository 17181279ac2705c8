#include "measure/device_sharing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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
SharedAllowance WaitAllowance(const DeviceSharing& sharing, bool level_cancelled) {
  if (!sharing.shared()) return {};
  const double spread = sharing.WaitHigh() - sharing.WaitLow();
  const double level = level_cancelled ? 0 : sharing.WaitMedian();
  return {level + spread, level + 2 * spread};
}

SharedAllowance CopyAllowance(const DeviceSharing& sharing, double idle_copy_seconds) {
  if (!sharing.shared()) return {};
  const double slowed = idle_copy_seconds * (sharing.CopySlowdown() - 1);
  const SharedAllowance wait = WaitAllowance(sharing, false);
  return {slowed + wait.within, 2 * slowed + wait.busy};
}

}  // namespace hone
