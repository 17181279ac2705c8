// How many value sets of a shape case get a float64 reference in the
// verify stage: every one until each value distribution has had
// kFloat64ElementsPerDistribution floating output elements checked against
// it, then none. The precision check is a relative L2 error, a statistic
// over elements: a full-size set (gigabytes) gives it all it needs in one,
// and a float64 forward of such a set costs more than the candidate's two
// calls on it, while a small problem's sets are all checked as before.
// Plain value; one per case.
#pragma once

#include <cstdint>
#include <vector>

namespace hone {

// 2^24 elements: a 4096 x 4096 output.
inline constexpr int64_t kFloat64ElementsPerDistribution = int64_t{1} << 24;

class Float64Budget {
 public:
  // `elements_per_set`: the case's floating output elements (0: none, and
  // every set is "given" the reference, which then has nothing to check).
  Float64Budget(int distributions, int64_t elements_per_set)
      : checked_(static_cast<size_t>(distributions), 0), per_set_(elements_per_set) {}

  // Whether the next set of value distribution `dist` gets the reference.
  bool Take(int dist) {
    int64_t& checked = checked_.at(static_cast<size_t>(dist));
    if (per_set_ > 0 && checked >= kFloat64ElementsPerDistribution) {
      ++skipped_;
      return false;
    }
    checked += per_set_;
    ++taken_;
    return true;
  }
  int taken() const { return taken_; }
  int skipped() const { return skipped_; }
  int64_t elements_per_set() const { return per_set_; }

 private:
  std::vector<int64_t> checked_;
  int64_t per_set_;
  int taken_ = 0, skipped_ = 0;
};

}  // namespace hone
