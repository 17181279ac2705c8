// Element-wise comparison of a candidate's output with the reference's.
//
// Pure functions over host buffers; the CUDA backend copies device outputs
// to the host or implements the same contract on the GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "verify/element_tally.h"
#include "verify/tolerance.h"

namespace hone {

struct Mismatch {
  bool ok = true;
  int64_t checked = 0;
  int64_t num_bad = 0;
  int64_t nan_or_inf = 0;  // non-finite where the reference is finite
  int64_t first_bad = -1;  // flat index
  double expected_at_first = 0, actual_at_first = 0;
  double max_abs_err = 0, max_rel_err = 0;
  int64_t worst = -1;       // flat index of the largest error over the tolerance bound
  double worst_excess = 0;  // by how much it exceeds the bound
};

// |actual - expected| <= atol + rtol * |expected|, element-wise; non-finite
// values must match the reference exactly (NaN where NaN, same-signed Inf).
Mismatch CompareElements(const void* actual, const void* expected, Dtype t, int64_t n,
                         const Tolerance& tol);

// Adds the result of a later range of the same tensor (ranges merged in
// index order keep "first" the lowest index); FinishMismatch sets `ok` and
// `worst` once every range is in.
void MergeMismatch(Mismatch& into, const Mismatch& m);
// The Mismatch of one range of `checked` elements.
Mismatch MismatchFromTally(const ElementTally& tally, int64_t checked);
void FinishMismatch(Mismatch& m);

// ||a - ref|| / ||ref|| over finite elements (0 when both are all zero);
// `ref` is float64.
double RelativeL2Error(const void* a, Dtype t, const double* ref, int64_t n);

// Whether a mismatch is still a pass under the tolerance's
// required_matched_ratio (below 1: that share of elements within bounds).
bool WithinMatchedRatio(const Mismatch& m, const Tolerance& tol);

// True when the two buffers hold identical bytes.
bool SameBytes(const void* a, const void* b, size_t bytes);
// Number of elements that differ bitwise and the first such index (-1: none).
int64_t CountDifferentElements(const void* a, const void* b, Dtype t, int64_t n, int64_t* first);

// "[3, 17]" from a flat index and a shape.
std::string IndexString(int64_t flat, const std::vector<int64_t>& shape);

}  // namespace hone
