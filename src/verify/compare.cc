#include "verify/compare.h"

#include <cmath>
#include <cstring>

namespace hone {

Mismatch CompareElements(const void* actual, const void* expected, Dtype t, int64_t n,
                         const Tolerance& tol) {
  Mismatch m;
  m.checked = n;
  double worst_excess = -1;
  for (int64_t i = 0; i < n; ++i) {
    // A bool must be exactly 0 or 1: any other byte (an unwritten, poisoned
    // element) would otherwise read as true.
    if (t == HONE_BOOL && static_cast<const uint8_t*>(actual)[i] > 1) {
      if (m.num_bad == 0) {
        m.first_bad = i;
        m.expected_at_first = LoadAsDouble(expected, t, static_cast<size_t>(i));
        m.actual_at_first = static_cast<const uint8_t*>(actual)[i];
      }
      ++m.num_bad;
      continue;
    }
    double a = LoadAsDouble(actual, t, static_cast<size_t>(i));
    double e = LoadAsDouble(expected, t, static_cast<size_t>(i));
    bool bad;
    double err = 0;
    if (!std::isfinite(e)) {
      bad = !(std::isnan(e) ? std::isnan(a) : a == e);
    } else if (!std::isfinite(a)) {
      bad = true;
      ++m.nan_or_inf;
    } else {
      err = std::fabs(a - e);
      double bound = tol.atol + tol.rtol * std::fabs(e);
      bad = err > bound;
      m.max_abs_err = std::max(m.max_abs_err, err);
      if (e != 0) m.max_rel_err = std::max(m.max_rel_err, err / std::fabs(e));
      if (bad && err - bound > worst_excess) {
        worst_excess = err - bound;
        m.worst = i;
      }
    }
    if (bad) {
      if (m.num_bad == 0) {
        m.first_bad = i;
        m.expected_at_first = e;
        m.actual_at_first = a;
      }
      ++m.num_bad;
    }
  }
  m.ok = m.num_bad == 0;
  if (m.worst < 0) m.worst = m.first_bad;
  return m;
}

double RelativeL2Error(const void* a, Dtype t, const double* ref, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; ++i) {
    double r = ref[i];
    if (!std::isfinite(r)) continue;
    double d = LoadAsDouble(a, t, static_cast<size_t>(i)) - r;
    num += d * d;
    den += r * r;
  }
  if (den == 0) return num == 0 ? 0 : INFINITY;
  return std::sqrt(num / den);
}

bool SameBytes(const void* a, const void* b, size_t bytes) { return std::memcmp(a, b, bytes) == 0; }

int64_t CountDifferentElements(const void* a, const void* b, Dtype t, int64_t n, int64_t* first) {
  size_t es = DtypeSize(t);
  const char* pa = static_cast<const char*>(a);
  const char* pb = static_cast<const char*>(b);
  int64_t count = 0;
  *first = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (std::memcmp(pa + i * es, pb + i * es, es) != 0) {
      if (count == 0) *first = i;
      ++count;
    }
  }
  return count;
}

std::string IndexString(int64_t flat, const std::vector<int64_t>& shape) {
  if (shape.empty()) return "[]";
  std::vector<int64_t> idx(shape.size());
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    int64_t s = shape[i] > 0 ? shape[i] : 1;
    idx[i] = flat % s;
    flat /= s;
  }
  std::string out = "[";
  for (size_t i = 0; i < idx.size(); ++i) out += (i ? ", " : "") + std::to_string(idx[i]);
  return out + "]";
}

}  // namespace hone
