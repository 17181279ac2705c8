// How close an output must be to the reference: the task declares it per
// output (task/task.h), the comparison applies it (verify/compare.h). A
// value type; no behaviour.
#pragma once

namespace hone {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
  double precision = 0;  // max relative L2 error vs the float64 reference; 0: not checked
};

}  // namespace hone
