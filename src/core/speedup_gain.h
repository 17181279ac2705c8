// How much a new passed kernel raises the best speedup so far, counted the
// same way by the auto strategy's bandit (search/auto_strategy.h) and by
// the reports of its runs (report/arm_summary.h). Pure functions.
#pragma once

namespace hone {

// A raise of the best speedup by less than this fraction is timing noise.
inline constexpr double kGainNoiseFloor = 0.03;

// ln(speedup / best) when `speedup` beats `best` by more than the noise
// floor, else 0. Scale-free: a 10% raise counts the same at 0.1x as at 5x.
// With no best yet (`best` <= 0) it is 0: the first passing kernel sets the
// best; finding a correct kernel is not a speedup.
double SpeedupGain(double best, double speedup);

}  // namespace hone
