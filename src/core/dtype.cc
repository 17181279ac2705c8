#include "core/dtype.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/status.h"

namespace hone {
namespace {

struct DtypeInfo {
  Dtype type;
  std::string_view name;
  bool floating;
};

// Sizes come from the candidate contract (hone_dtype_size), so hone, the
// sandbox and candidates agree on them.
constexpr DtypeInfo kDtypes[] = {
    {HONE_F32, "f32", true},    {HONE_F64, "f64", true},  {HONE_F16, "f16", true},
    {HONE_BF16, "bf16", true},  {HONE_I8, "i8", false},   {HONE_U8, "u8", false},
    {HONE_I16, "i16", false},   {HONE_I32, "i32", false}, {HONE_I64, "i64", false},
    {HONE_BOOL, "bool", false},
};

const DtypeInfo& Info(Dtype t) {
  for (const auto& d : kDtypes)
    if (d.type == t) return d;
  HONE_CHECK(false, "unknown dtype " + std::to_string(static_cast<int>(t)));
  std::abort();
}

template <typename I>
I SaturateRound(double v) {
  if (std::isnan(v)) return 0;
  double r = std::nearbyint(v);
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

std::string_view DtypeName(Dtype t) { return Info(t).name; }
size_t DtypeSize(Dtype t) { return hone_dtype_size(Info(t).type); }
bool IsFloating(Dtype t) { return Info(t).floating; }

std::optional<Dtype> ParseDtype(std::string_view s) {
  struct Alias {
    std::string_view name;
    Dtype type;
  };
  static constexpr Alias kAliases[] = {
      {"float32", HONE_F32}, {"float", HONE_F32}, {"float64", HONE_F64},   {"double", HONE_F64},
      {"float16", HONE_F16}, {"half", HONE_F16},  {"bfloat16", HONE_BF16}, {"int8", HONE_I8},
      {"uint8", HONE_U8},    {"int16", HONE_I16}, {"int32", HONE_I32},     {"int", HONE_I32},
      {"int64", HONE_I64},   {"long", HONE_I64},  {"bool", HONE_BOOL},
  };
  for (const auto& d : kDtypes)
    if (d.name == s) return d.type;
  for (const auto& a : kAliases)
    if (a.name == s) return a.type;
  return std::nullopt;
}

uint16_t FloatToHalf(float f) {
  uint32_t x = FloatBits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mant = x & 0x7fffffu;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xffu);
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into exponent
  return static_cast<uint16_t>(half);
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return BitsFloat(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return BitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t FloatToBf16(float f) {
  uint32_t x = FloatBits(f);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

float Bf16ToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

void ConvertElements(const void* src, Dtype from, void* dst, Dtype to, int64_t n) {
  if (from == HONE_F32 && to == HONE_F64) {
    const float* s = static_cast<const float*>(src);
    double* d = static_cast<double*>(dst);
#pragma omp parallel for schedule(static) if (n > (1 << 16))
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
#pragma omp parallel for schedule(static) if (n > (1 << 16))
  for (int64_t i = 0; i < n; ++i)
    StoreFromDouble(dst, to, static_cast<size_t>(i),
                    LoadAsDouble(src, from, static_cast<size_t>(i)));
}

double LoadAsDouble(const void* data, Dtype t, size_t i) {
  switch (t) {
    case HONE_F32:
      return static_cast<const float*>(data)[i];
    case HONE_F64:
      return static_cast<const double*>(data)[i];
    case HONE_F16:
      return HalfToFloat(static_cast<const uint16_t*>(data)[i]);
    case HONE_BF16:
      return Bf16ToFloat(static_cast<const uint16_t*>(data)[i]);
    case HONE_I8:
      return static_cast<const int8_t*>(data)[i];
    case HONE_U8:
      return static_cast<const uint8_t*>(data)[i];
    case HONE_I16:
      return static_cast<const int16_t*>(data)[i];
    case HONE_I32:
      return static_cast<const int32_t*>(data)[i];
    case HONE_I64:
      return static_cast<double>(static_cast<const int64_t*>(data)[i]);
    case HONE_BOOL:
      return static_cast<const uint8_t*>(data)[i] != 0 ? 1.0 : 0.0;
  }
  HONE_CHECK(false, "unknown dtype");
  return 0;
}

void StoreFromDouble(void* data, Dtype t, size_t i, double v) {
  switch (t) {
    case HONE_F32:
      static_cast<float*>(data)[i] = static_cast<float>(v);
      return;
    case HONE_F64:
      static_cast<double*>(data)[i] = v;
      return;
    case HONE_F16:
      static_cast<uint16_t*>(data)[i] = FloatToHalf(static_cast<float>(v));
      return;
    case HONE_BF16:
      static_cast<uint16_t*>(data)[i] = FloatToBf16(static_cast<float>(v));
      return;
    case HONE_I8:
      static_cast<int8_t*>(data)[i] = SaturateRound<int8_t>(v);
      return;
    case HONE_U8:
      static_cast<uint8_t*>(data)[i] = SaturateRound<uint8_t>(v);
      return;
    case HONE_I16:
      static_cast<int16_t*>(data)[i] = SaturateRound<int16_t>(v);
      return;
    case HONE_I32:
      static_cast<int32_t*>(data)[i] = SaturateRound<int32_t>(v);
      return;
    case HONE_I64:
      static_cast<int64_t*>(data)[i] = SaturateRound<int64_t>(v);
      return;
    case HONE_BOOL:
      static_cast<uint8_t*>(data)[i] = v != 0.0 ? 1 : 0;
      return;
  }
  HONE_CHECK(false, "unknown dtype");
}

}  // namespace hone
