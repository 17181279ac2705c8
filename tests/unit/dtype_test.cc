#include "core/dtype.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone {
namespace {

TEST(DtypeTest, NamesAndSizesRoundTrip) {
  for (Dtype t : {HONE_F32, HONE_F64, HONE_F16, HONE_BF16, HONE_I8, HONE_U8, HONE_I16, HONE_I32,
                  HONE_I64, HONE_BOOL}) {
    auto parsed = ParseDtype(DtypeName(t));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(*ParseDtype("float32"), HONE_F32);
  EXPECT_EQ(*ParseDtype("bfloat16"), HONE_BF16);
  EXPECT_FALSE(ParseDtype("f33").has_value());
  EXPECT_EQ(DtypeSize(HONE_BF16), 2u);
  EXPECT_EQ(DtypeSize(HONE_I64), 8u);
  EXPECT_TRUE(IsFloating(HONE_F16));
  EXPECT_FALSE(IsFloating(HONE_I32));
}

TEST(DtypeTest, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(HalfToFloat(FloatToHalf(1.0f)), 1.0f);
  EXPECT_EQ(HalfToFloat(FloatToHalf(-2.5f)), -2.5f);
  EXPECT_EQ(HalfToFloat(FloatToHalf(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(HalfToFloat(FloatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
  // 1 + 2^-11 is halfway between two halves: ties to even (1.0).
  EXPECT_EQ(HalfToFloat(FloatToHalf(1.0f + 0x1p-11f)), 1.0f);
  // Subnormal halves survive.
  float tiny = 0x1p-24f;
  EXPECT_EQ(HalfToFloat(FloatToHalf(tiny)), tiny);
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(1.5f)), 1.5f);
  EXPECT_NEAR(Bf16ToFloat(FloatToBf16(3.14159f)), 3.14159f, 0.02f);
}

TEST(DtypeTest, LoadAndStoreThroughDouble) {
  int8_t i8[1];
  StoreFromDouble(i8, HONE_I8, 0, 300.0);  // saturates
  EXPECT_EQ(i8[0], 127);
  StoreFromDouble(i8, HONE_I8, 0, -2.6);
  EXPECT_EQ(LoadAsDouble(i8, HONE_I8, 0), -3.0);
  uint8_t b[1];
  StoreFromDouble(b, HONE_BOOL, 0, 0.5);
  EXPECT_EQ(LoadAsDouble(b, HONE_BOOL, 0), 1.0);
  uint16_t h[1];
  StoreFromDouble(h, HONE_F16, 0, 0.25);
  EXPECT_EQ(LoadAsDouble(h, HONE_F16, 0), 0.25);
}

}  // namespace
}  // namespace hone
