#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cuda/device_dtype.h"
#include "cuda/device_fill.h"

namespace hone {
namespace {

// Integer ranges usable in device code (numeric_limits is host-only there).
template <typename T>
struct Bounds;
template <>
struct Bounds<int8_t> {
  static constexpr int8_t lo = INT8_MIN, hi = INT8_MAX;
};
template <>
struct Bounds<uint8_t> {
  static constexpr uint8_t lo = 0, hi = UINT8_MAX;
};
template <>
struct Bounds<int16_t> {
  static constexpr int16_t lo = INT16_MIN, hi = INT16_MAX;
};
template <>
struct Bounds<int32_t> {
  static constexpr int32_t lo = INT32_MIN, hi = INT32_MAX;
};
template <>
struct Bounds<int64_t> {
  static constexpr int64_t lo = INT64_MIN, hi = INT64_MAX;
};

// StoreFromDouble's rules (core/dtype.h): round to nearest, saturate
// integers, NaN to 0, bool as v != 0.
template <typename T>
__device__ __forceinline__ T FromDouble(double v) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return v;
  } else if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else {
    constexpr double lo = static_cast<double>(Bounds<T>::lo);
    constexpr double hi = static_cast<double>(Bounds<T>::hi);
    constexpr T lo_value = Bounds<T>::lo, hi_value = Bounds<T>::hi;
    if (isnan(v)) return 0;
    double r = nearbyint(v);
    if (r <= lo) return lo_value;
    if (r >= hi) return hi_value;
    return static_cast<T>(r);
  }
}

// One thread per chunk, drawing its elements in order like the host does.
template <typename T, bool kBool = false>
__global__ void FillKernel(T* out, int64_t n, SamplerSpec spec, uint64_t seed,
                           uint64_t rng_stream) {
  int64_t chunk = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  int64_t begin = chunk * kSamplerChunk;
  if (begin >= n) return;
  int64_t end = min(n, begin + kSamplerChunk);
  Rng rng = ChunkRng(seed, rng_stream, chunk);
  for (int64_t i = begin; i < end; ++i) {
    double v = SampleNext(spec, rng, i);
    if constexpr (kBool)
      out[i] = v != 0.0 ? 1 : 0;
    else
      out[i] = FromDouble<T>(v);
  }
}

template <typename T, bool kBool = false>
void Launch(void* dst, int64_t n, const SamplerSpec& spec, uint64_t seed, uint64_t rng_stream,
            cudaStream_t stream) {
  constexpr int kThreads = 128;
  int64_t chunks = (n + kSamplerChunk - 1) / kSamplerChunk;
  auto blocks = static_cast<unsigned>((chunks + kThreads - 1) / kThreads);
  FillKernel<T, kBool>
      <<<blocks, kThreads, 0, stream>>>(static_cast<T*>(dst), n, spec, seed, rng_stream);
}

template <typename T>
__device__ __forceinline__ double AsDouble(T v) {
  if constexpr (std::is_same_v<T, __half>)
    return static_cast<double>(__half2float(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return static_cast<double>(__bfloat162float(v));
  else
    return static_cast<double>(v);
}

template <typename T>
__global__ void ScaleKernel(const T* src, T* dst, int64_t n, double factor) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    dst[i] = FromDouble<T>(AsDouble(src[i]) * factor);
}

}  // namespace

Status ScaleOnDevice(const void* src, void* dst, Dtype t, int64_t n, double factor,
                     void* stream_ptr) {
  HONE_CHECK(IsFloating(t), "only floating tensors are scaled");
  if (n == 0) return Status::Ok();
  auto s = static_cast<cudaStream_t>(stream_ptr);
  constexpr int kThreads = 256;
  auto blocks = static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65536));
  VisitDeviceDtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
      ScaleKernel<T>
          <<<blocks, kThreads, 0, s>>>(static_cast<const T*>(src), static_cast<T*>(dst), n, factor);
  });
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return Status::Ok();
  return Status::Unavailable(std::string("the worker's GPU failed scaling inputs: ") +
                             cudaGetErrorString(e));
}

Status FillOnDevice(void* dst, Dtype t, int64_t n, const SamplerSpec& spec, uint64_t seed,
                    uint64_t rng_stream, void* stream_ptr) {
  if (n == 0) return Status::Ok();
  auto s = static_cast<cudaStream_t>(stream_ptr);
  VisitDeviceDtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      Launch<uint8_t, true>(dst, n, spec, seed, rng_stream, s);
    else
      Launch<T>(dst, n, spec, seed, rng_stream, s);
  });
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return Status::Ok();
  return Status::Unavailable(std::string("the worker's GPU failed generating inputs: ") +
                             cudaGetErrorString(e));
}

}  // namespace hone
