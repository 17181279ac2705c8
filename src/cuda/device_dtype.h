// The device element type of each hone dtype, for code compiled by nvcc:
// VisitDeviceDtype(t, f) calls f(DeviceType<T>{}) with T float, double,
// __half, __nv_bfloat16, the integer types, or bool (stored as one byte, 0
// or 1). An unknown dtype is a programmer error and aborts.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/dtype.h"
#include "core/status.h"

namespace hone {

template <typename T>
struct DeviceType {
  using type = T;
};

template <typename F>
decltype(auto) VisitDeviceDtype(Dtype t, F&& f) {
  switch (t) {
    case HONE_F32:
      return f(DeviceType<float>{});
    case HONE_F64:
      return f(DeviceType<double>{});
    case HONE_F16:
      return f(DeviceType<__half>{});
    case HONE_BF16:
      return f(DeviceType<__nv_bfloat16>{});
    case HONE_I8:
      return f(DeviceType<int8_t>{});
    case HONE_U8:
      return f(DeviceType<uint8_t>{});
    case HONE_I16:
      return f(DeviceType<int16_t>{});
    case HONE_I32:
      return f(DeviceType<int32_t>{});
    case HONE_I64:
      return f(DeviceType<int64_t>{});
    case HONE_BOOL:
      return f(DeviceType<bool>{});
  }
  HONE_CHECK(false, "unknown dtype");
  return f(DeviceType<float>{});
}

}  // namespace hone
