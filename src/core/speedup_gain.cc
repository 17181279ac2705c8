#include "core/speedup_gain.h"

#include <cmath>

namespace hone {

double SpeedupGain(double best, double speedup) {
  if (best <= 0 || speedup <= best * (1 + kGainNoiseFloor)) return 0;
  return std::log(speedup / best);
}

}  // namespace hone
