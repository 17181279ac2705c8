// How close an output must be to the reference: the task declares it per
// output (task/task.h), the comparison applies it (verify/compare.h). A
// value type; no behaviour.
#pragma once

namespace hone {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
  double precision = 0;  // max relative L2 error vs the float64 reference; 0: not checked
  // The share of elements that must be within atol/rtol (FlashInfer-Trace's
  // required_matched_ratio); 1: all. A NaN or Inf where the reference is
  // finite fails the output whatever the ratio.
  double required_matched_ratio = 1;
};

}  // namespace hone
