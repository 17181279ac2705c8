// The gain of a new best speedup, as the auto strategy and its reports count
// it.
#include "core/speedup_gain.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone {
namespace {

TEST(SpeedupGainTest, IsTheLogOfTheRaiseBeyondNoise) {
  EXPECT_EQ(SpeedupGain(0, 2.0), 0) << "the first passing kernel sets the best";
  EXPECT_DOUBLE_EQ(SpeedupGain(2.0, 3.0), std::log(1.5));
  EXPECT_DOUBLE_EQ(SpeedupGain(0.1, 0.15), SpeedupGain(2.0, 3.0)) << "scale-free";
  EXPECT_EQ(SpeedupGain(2.0, 2.02), 0) << "within the noise floor";
  EXPECT_EQ(SpeedupGain(2.0, 1.0), 0);
}

}  // namespace
}  // namespace hone
