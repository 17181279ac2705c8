#include "verify/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hone {

namespace {

// Reads element i of a buffer; a direct load for the common float types.
template <typename T>
struct Reader {
  const T* p;
  double operator()(int64_t i) const { return static_cast<double>(p[i]); }
};
struct AnyReader {
  const void* p;
  Dtype t;
  double operator()(int64_t i) const { return LoadAsDouble(p, t, static_cast<size_t>(i)); }
};

template <typename R>
Mismatch CompareRange(R actual, R expected, Dtype t, int64_t begin, int64_t end,
                      const Tolerance& tol, const uint8_t* raw_actual) {
  ElementTally tally;
  for (int64_t i = begin; i < end; ++i) {
    // A bool must be exactly 0 or 1: any other byte (an unwritten, poisoned
    // element) would otherwise read as true.
    if (t == HONE_BOOL && raw_actual[i] > 1)
      tally.AddInvalid(i, raw_actual[i], expected(i));
    else
      tally.Add(i, actual(i), expected(i), tol.atol, tol.rtol);
  }
  return MismatchFromTally(tally, end - begin);
}

}  // namespace

Mismatch MismatchFromTally(const ElementTally& t, int64_t checked) {
  Mismatch m;
  m.checked = checked;
  m.num_bad = t.num_bad;
  m.nan_or_inf = t.nan_or_inf;
  m.first_bad = t.first_bad;
  m.expected_at_first = t.expected_at_first;
  m.actual_at_first = t.actual_at_first;
  m.max_abs_err = t.max_abs;
  m.max_rel_err = t.max_rel;
  m.worst = t.worst;
  m.worst_excess = t.worst >= 0 ? t.worst_excess : 0;
  return m;
}

void MergeMismatch(Mismatch& into, const Mismatch& m) {
  if (into.num_bad == 0 && m.num_bad > 0) {
    into.first_bad = m.first_bad;
    into.expected_at_first = m.expected_at_first;
    into.actual_at_first = m.actual_at_first;
  }
  if (m.worst >= 0 && (into.worst < 0 || m.worst_excess > into.worst_excess)) {
    into.worst = m.worst;
    into.worst_excess = m.worst_excess;
  }
  into.checked += m.checked;
  into.num_bad += m.num_bad;
  into.nan_or_inf += m.nan_or_inf;
  into.max_abs_err = std::max(into.max_abs_err, m.max_abs_err);
  into.max_rel_err = std::max(into.max_rel_err, m.max_rel_err);
}

void FinishMismatch(Mismatch& m) {
  m.ok = m.num_bad == 0;
  if (m.worst < 0) m.worst = m.first_bad;
}

namespace {

constexpr int64_t kChunk = 1 << 16;

template <typename R>
Mismatch CompareAll(R actual, R expected, Dtype t, int64_t n, const Tolerance& tol,
                    const uint8_t* raw) {
  int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<Mismatch> parts(static_cast<size_t>(chunks));
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (int64_t c = 0; c < chunks; ++c)
    parts[static_cast<size_t>(c)] =
        CompareRange(actual, expected, t, c * kChunk, std::min(n, (c + 1) * kChunk), tol, raw);
  Mismatch m;
  for (const auto& p : parts) MergeMismatch(m, p);
  FinishMismatch(m);
  return m;
}

}  // namespace

Mismatch CompareElements(const void* actual, const void* expected, Dtype t, int64_t n,
                         const Tolerance& tol) {
  auto raw = static_cast<const uint8_t*>(actual);
  if (t == HONE_F32)
    return CompareAll(Reader<float>{static_cast<const float*>(actual)},
                      Reader<float>{static_cast<const float*>(expected)}, t, n, tol, raw);
  if (t == HONE_F64)
    return CompareAll(Reader<double>{static_cast<const double*>(actual)},
                      Reader<double>{static_cast<const double*>(expected)}, t, n, tol, raw);
  return CompareAll(AnyReader{actual, t}, AnyReader{expected, t}, t, n, tol, raw);
}

bool WithinMatchedRatio(const Mismatch& m, const Tolerance& tol) {
  if (m.ok) return true;
  if (tol.required_matched_ratio >= 1 || m.nan_or_inf > 0 || m.checked <= 0) return false;
  double matched = 1.0 - static_cast<double>(m.num_bad) / static_cast<double>(m.checked);
  return matched >= tol.required_matched_ratio;
}

double RelativeL2Error(const void* a, Dtype t, const double* ref, int64_t n) {
  double num = 0, den = 0;
#pragma omp parallel for reduction(+ : num, den) schedule(static) if (n > (1 << 16))
  for (int64_t i = 0; i < n; ++i) {
    double r = ref[i];
    if (!std::isfinite(r)) continue;
    double v = t == HONE_F32 ? static_cast<const float*>(a)[i]
                             : LoadAsDouble(a, t, static_cast<size_t>(i));
    double d = v - r;
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
