#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "cuda/device_compare.h"
#include "cuda/device_dtype.h"

namespace hone {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;

using Part = ElementTally;

template <typename T>
__device__ __forceinline__ double ToDouble(T v) {
  return static_cast<double>(v);
}
template <>
__device__ __forceinline__ double ToDouble<__half>(__half v) {
  return static_cast<double>(__half2float(v));
}
template <>
__device__ __forceinline__ double ToDouble<__nv_bfloat16>(__nv_bfloat16 v) {
  return static_cast<double>(__bfloat162float(v));
}

// Merges every thread's part (P::Merge) and thread 0 stores the block's in
// parts[blockIdx.x]. All threads of the block must call it.
template <typename P>
__device__ void ReduceBlock(const P& mine, P* parts) {
  // Raw storage: __shared__ variables cannot have constructors.
  __shared__ alignas(P) unsigned char storage[sizeof(P) * kThreads];
  auto* shared = reinterpret_cast<P*>(storage);
  shared[threadIdx.x] = mine;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x].Merge(shared[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) parts[blockIdx.x] = shared[0];
}

// Block b checks the contiguous range [b * chunk, (b + 1) * chunk).
template <typename T, bool kBool>
__global__ void CompareKernel(const T* actual, const T* expected, int64_t n, int64_t chunk,
                              double atol, double rtol, Part* parts) {
  int64_t begin = blockIdx.x * chunk, end = min(n, begin + chunk);
  Part p;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    double e = ToDouble(expected[i]);
    auto raw = reinterpret_cast<const unsigned char*>(actual)[i];
    if (kBool && raw > 1)
      p.AddInvalid(i, raw, e);
    else
      p.Add(i, ToDouble(actual[i]), e, atol, rtol);
  }
  ReduceBlock(p, parts);
}

struct L2Part {
  double num = 0, den = 0;
  __device__ void Merge(const L2Part& y) {
    num += y.num;
    den += y.den;
  }
};

template <typename T>
__global__ void RelativeL2Kernel(const T* a, const double* ref, int64_t n, int64_t chunk,
                                 L2Part* parts) {
  int64_t begin = blockIdx.x * chunk, end = min(n, begin + chunk);
  L2Part p;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    double r = ref[i];
    if (!isfinite(r)) continue;
    double d = ToDouble(a[i]) - r;
    p.num += d * d;
    p.den += r * r;
  }
  ReduceBlock(p, parts);
}

struct DiffPart {
  long long count = 0, first = -1;
  __device__ void Merge(const DiffPart& y) {
    if (y.first >= 0 && (first < 0 || y.first < first)) first = y.first;
    count += y.count;
  }
};

// T is an unsigned integer as wide as the element.
template <typename T>
__global__ void CountDifferentKernel(const T* a, const T* b, int64_t n, int64_t chunk,
                                     DiffPart* parts) {
  int64_t begin = blockIdx.x * chunk, end = min(n, begin + chunk);
  DiffPart p;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    if (a[i] == b[i]) continue;
    if (p.count == 0) p.first = i;
    ++p.count;
  }
  ReduceBlock(p, parts);
}

template <typename T>
__global__ void WidenKernel(const T* src, double* dst, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    dst[i] = ToDouble(src[i]);
}

Status CudaStatus(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::Ok();
  return Status::Unavailable(std::string("the worker's GPU failed in ") + what + ": " +
                             cudaGetErrorString(e));
}

// Splits n elements into at most kMaxBlocks contiguous chunks.
struct Grid {
  int64_t blocks = 0, chunk = 0;
};
Grid GridFor(int64_t n) {
  Grid g;
  g.chunk = std::max<int64_t>(kThreads * 8, (n + kMaxBlocks - 1) / kMaxBlocks);
  g.blocks = (n + g.chunk - 1) / g.chunk;
  return g;
}

// Launches `launch(parts)` with device room for `blocks` partial results and
// returns them on the host.
template <typename P, typename Launch>
Result<std::vector<P>> RunReduction(int64_t blocks, cudaStream_t stream, const char* what,
                                    Launch launch) {
  std::vector<P> host(static_cast<size_t>(blocks));
  P* parts = nullptr;
  HONE_RETURN_IF_ERROR(CudaStatus(
      cudaMallocAsync(reinterpret_cast<void**>(&parts), host.size() * sizeof(P), stream), what));
  launch(parts);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(host.data(), parts, host.size() * sizeof(P), cudaMemcpyDeviceToHost,
                        stream);
  cudaFreeAsync(parts, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  HONE_RETURN_IF_ERROR(CudaStatus(e, what));
  return host;
}

template <typename T, bool kBool = false>
Result<Mismatch> CompareTyped(const void* actual, const void* expected, int64_t n,
                              const Tolerance& tol, cudaStream_t stream) {
  Grid g = GridFor(n);
  HONE_ASSIGN_OR_RETURN(auto parts,
                        RunReduction<Part>(g.blocks, stream, "comparing outputs", [&](Part* d) {
                          CompareKernel<T, kBool><<<g.blocks, kThreads, 0, stream>>>(
                              static_cast<const T*>(actual), static_cast<const T*>(expected), n,
                              g.chunk, tol.atol, tol.rtol, d);
                        }));
  Mismatch m;
  for (int64_t b = 0; b < g.blocks; ++b)
    MergeMismatch(m, MismatchFromTally(parts[static_cast<size_t>(b)],
                                       std::min(n, (b + 1) * g.chunk) - b * g.chunk));
  FinishMismatch(m);
  return m;
}

template <typename T>
Result<double> RelativeL2Typed(const void* a, const double* ref, int64_t n, cudaStream_t stream) {
  Grid g = GridFor(n);
  HONE_ASSIGN_OR_RETURN(
      auto parts, RunReduction<L2Part>(g.blocks, stream, "the precision check", [&](L2Part* d) {
        RelativeL2Kernel<T>
            <<<g.blocks, kThreads, 0, stream>>>(static_cast<const T*>(a), ref, n, g.chunk, d);
      }));
  double num = 0, den = 0;
  for (const L2Part& p : parts) {
    num += p.num;
    den += p.den;
  }
  if (den == 0) return num == 0 ? 0.0 : INFINITY;
  return std::sqrt(num / den);
}

template <typename T>
Result<int64_t> CountDifferentTyped(const void* a, const void* b, int64_t n, int64_t* first,
                                    cudaStream_t stream) {
  Grid g = GridFor(n);
  HONE_ASSIGN_OR_RETURN(
      auto parts, RunReduction<DiffPart>(g.blocks, stream, "comparing inputs", [&](DiffPart* d) {
        CountDifferentKernel<T><<<g.blocks, kThreads, 0, stream>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), n, g.chunk, d);
      }));
  int64_t count = 0;
  *first = -1;
  for (const DiffPart& p : parts) {
    if (count == 0 && p.count > 0) *first = p.first;
    count += p.count;
  }
  return count;
}

}  // namespace

Result<Mismatch> CompareElementsOnDevice(const void* actual, const void* expected, Dtype t,
                                         int64_t n, const Tolerance& tol, void* stream_ptr) {
  if (n == 0) return Mismatch{};
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  return VisitDeviceDtype(t, [&](auto tag) -> Result<Mismatch> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      return CompareTyped<uint8_t, true>(actual, expected, n, tol, stream);
    else
      return CompareTyped<T>(actual, expected, n, tol, stream);
  });
}

Result<double> RelativeL2ErrorOnDevice(const void* a, Dtype t, const double* ref, int64_t n,
                                       void* stream_ptr) {
  HONE_CHECK(IsFloating(t), "the precision check is for floating outputs");
  if (n == 0) return 0.0;
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  return VisitDeviceDtype(t, [&](auto tag) -> Result<double> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
      return RelativeL2Typed<T>(a, ref, n, stream);
    else
      return 0.0;  // unreachable: checked above
  });
}

Result<int64_t> CountDifferentElementsOnDevice(const void* a, const void* b, Dtype t, int64_t n,
                                               int64_t* first, void* stream_ptr) {
  *first = -1;
  if (n == 0) return int64_t{0};
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  switch (DtypeSize(t)) {
    case 1:
      return CountDifferentTyped<uint8_t>(a, b, n, first, stream);
    case 2:
      return CountDifferentTyped<uint16_t>(a, b, n, first, stream);
    case 4:
      return CountDifferentTyped<uint32_t>(a, b, n, first, stream);
    case 8:
      return CountDifferentTyped<uint64_t>(a, b, n, first, stream);
  }
  HONE_CHECK(false, "unexpected element size");
  return int64_t{0};
}

Status WidenToDoubleOnDevice(const void* src, Dtype from, double* dst, int64_t n,
                             void* stream_ptr) {
  HONE_CHECK(IsFloating(from), "only floating tensors widen to float64");
  if (n == 0) return Status::Ok();
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  int blocks = static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65536));
  VisitDeviceDtype(from, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
      WidenKernel<<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(src), dst, n);
  });
  return CudaStatus(cudaGetLastError(), "widening to float64");
}

}  // namespace hone
