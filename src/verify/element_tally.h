// The element rule of verify/compare.h, written once for the host's chunks
// and the GPU's threads (cuda/device_compare.cu): |actual - expected| <=
// atol + rtol * |expected|; non-finite values must match the reference
// exactly; a bool byte other than 0 or 1 is wrong.
//
// A tally covers some elements; Merge adds another tally (any order: the
// lowest first index and the largest excess win). Plain data.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/host_device.h"

namespace hone {

HONE_HOST_DEVICE inline bool IsFiniteValue(double x) {
#ifdef __CUDA_ARCH__
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}

HONE_HOST_DEVICE inline bool IsNanValue(double x) {
#ifdef __CUDA_ARCH__
  return isnan(x);
#else
  return std::isnan(x);
#endif
}

struct ElementTally {
  int64_t num_bad = 0, nan_or_inf = 0, first_bad = -1, worst = -1;
  double max_abs = 0, max_rel = 0, worst_excess = -1;
  double expected_at_first = 0, actual_at_first = 0;

  HONE_HOST_DEVICE static double Bound(double e, double atol, double rtol) {
#ifdef __CUDA_ARCH__
    // Rounded like the host (no fused multiply-add).
    return __dadd_rn(atol, __dmul_rn(rtol, fabs(e)));
#else
    return atol + rtol * fabs(e);
#endif
  }

  HONE_HOST_DEVICE void Add(int64_t i, double a, double e, double atol, double rtol) {
    bool bad;
    if (!IsFiniteValue(e)) {
      bad = !(IsNanValue(e) ? IsNanValue(a) : a == e);
    } else if (!IsFiniteValue(a)) {
      bad = true;
      ++nan_or_inf;
    } else {
      double err = fabs(a - e), bound = Bound(e, atol, rtol);
      bad = err > bound;
      max_abs = fmax(max_abs, err);
      if (e != 0) max_rel = fmax(max_rel, err / fabs(e));
      if (bad && err - bound > worst_excess) {
        worst_excess = err - bound;
        worst = i;
      }
    }
    if (bad) AddBad(i, a, e);
  }

  // An element that is no valid value at all (`raw` as read).
  HONE_HOST_DEVICE void AddInvalid(int64_t i, double raw, double e) { AddBad(i, raw, e); }

  HONE_HOST_DEVICE void Merge(const ElementTally& y) {
    if (y.first_bad >= 0 && (first_bad < 0 || y.first_bad < first_bad)) {
      first_bad = y.first_bad;
      expected_at_first = y.expected_at_first;
      actual_at_first = y.actual_at_first;
    }
    if (y.worst >= 0 && (worst < 0 || y.worst_excess > worst_excess ||
                         (y.worst_excess == worst_excess && y.worst < worst))) {
      worst = y.worst;
      worst_excess = y.worst_excess;
    }
    num_bad += y.num_bad;
    nan_or_inf += y.nan_or_inf;
    max_abs = fmax(max_abs, y.max_abs);
    max_rel = fmax(max_rel, y.max_rel);
  }

 private:
  HONE_HOST_DEVICE void AddBad(int64_t i, double a, double e) {
    if (first_bad < 0 || i < first_bad) {
      first_bad = i;
      expected_at_first = e;
      actual_at_first = a;
    }
    ++num_bad;
  }
};

}  // namespace hone
