#include "bench/tally.h"

#include <fmt/format.h>

#include <algorithm>

namespace hone {

std::string FormatEta(double seconds) {
  if (seconds < 90) return fmt::format("{:.0f} s", seconds);
  if (seconds < 5400) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

std::string BenchTally::Line(const std::string& what) const {
  // Each lane takes the mean time per unit: the rest is shared out.
  std::string eta =
      fresh > 0 ? ", ETA " + FormatEta(fresh_seconds / fresh * (total - done) / std::max(lanes, 1))
                : "";
  std::string fastest = best > 0 ? fmt::format("{:.2f}x", best) : "-";
  return fmt::format("[{}/{} done, {} passed, best {}{}] {}", done, total, passed, fastest, eta,
                     what);
}

void BenchTally::Count(const std::string& status, std::optional<double> speedup) {
  ++done;
  if (status != "passed") return;
  ++passed;
  if (speedup) best = std::max(best, *speedup);
}

}  // namespace hone
