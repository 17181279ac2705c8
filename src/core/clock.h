// Wall time measured by hone itself (stages, oracle cost, benchmarks), on the
// monotonic clock. Kernel timings use their own clocks (measure/timer.h).
#pragma once

#include <chrono>

namespace hone {

// Seconds from `start` (a steady_clock reading) to now.
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hone
