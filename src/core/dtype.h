// Element types of the candidate contract, with host-side conversions.
//
// Conversions go through double: the verifier compares in double and the
// value generators produce doubles, so every dtype needs exactly these two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hone/kernel.h"

namespace hone {

using Dtype = hone_dtype;

std::string_view DtypeName(Dtype t);                 // "f32", "bf16", ...
std::optional<Dtype> ParseDtype(std::string_view);   // accepts "f32", "float32", "float", ...
size_t DtypeSize(Dtype t);
bool IsFloating(Dtype t);

// Reads element i of a buffer of dtype t as a double.
double LoadAsDouble(const void* data, Dtype t, size_t i);
// Writes v (rounded to nearest, saturating for integers) into element i.
void StoreFromDouble(void* data, Dtype t, size_t i, double v);

// Converts n elements between dtypes, on all cores (f32 <-> f64 directly).
void ConvertElements(const void* src, Dtype from, void* dst, Dtype to, int64_t n);

// Half-precision conversions (round to nearest even).
uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);
uint16_t FloatToBf16(float f);
float Bf16ToFloat(uint16_t b);

}  // namespace hone
