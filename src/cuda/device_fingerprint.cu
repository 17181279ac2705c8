#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "cuda/device_fingerprint.h"

namespace hone {
namespace {

struct DeviceRange {
  uint64_t offset, bytes;
};

// splitmix64's finaliser: every input bit reaches every output bit.
__device__ __forceinline__ uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

__device__ __forceinline__ uint64_t MixAt(uint64_t value, uint64_t position, uint64_t key) {
  return Mix(value ^ Mix(position + key));
}

// blockIdx.y picks the range; the blocks along x share its aligned words,
// the first block also takes its unaligned head and tail bytes.
__global__ void FingerprintKernel(const unsigned char* base, const DeviceRange* ranges,
                                  uint64_t key, unsigned long long* sums) {
  const DeviceRange r = ranges[blockIdx.y];
  uint64_t begin = r.offset, end = r.offset + r.bytes;
  uint64_t first_word = (begin + 7) / 8, last_word = end / 8;
  uint64_t sum = 0;
  if (first_word < last_word) {
    const uint64_t* words = reinterpret_cast<const uint64_t*>(base);
    uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
    for (uint64_t w = first_word + blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
         w < last_word; w += stride)
      sum += MixAt(words[w], w, key);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    uint64_t head_end = first_word < last_word ? first_word * 8 : end;
    for (uint64_t b = begin; b < head_end; ++b) sum += MixAt(base[b], b, ~key);
    for (uint64_t b = head_end > last_word * 8 ? head_end : last_word * 8; b < end; ++b)
      sum += MixAt(base[b], b, ~key);
  }
  for (int d = 16; d > 0; d /= 2) sum += __shfl_down_sync(0xffffffffu, sum, d);
  if ((threadIdx.x & 31) == 0 && sum != 0) atomicAdd(&sums[blockIdx.y], sum);
}

std::string Failed(const char* what, cudaError_t e) {
  return std::string("fingerprinting the arena: ") + what + ": " + cudaGetErrorString(e);
}

}  // namespace

Status FingerprintOnDevice(const void* base, const std::vector<ArenaRange>& ranges, uint64_t key,
                           void* stream_ptr, std::vector<uint64_t>* out) {
  out->assign(ranges.size(), 0);
  if (ranges.empty()) return Status::Ok();
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  std::vector<DeviceRange> host;
  uint64_t longest = 0;
  for (const ArenaRange& r : ranges) {
    host.push_back({r.offset, r.bytes});
    longest = std::max<uint64_t>(longest, r.bytes);
  }
  const size_t table_bytes = host.size() * sizeof(DeviceRange);
  const size_t sums_bytes = host.size() * sizeof(unsigned long long);
  void* scratch = nullptr;
  if (cudaError_t e = cudaMallocAsync(&scratch, table_bytes + sums_bytes, stream); e != cudaSuccess)
    return Status::Unavailable(Failed("cudaMallocAsync", e));
  auto* table = static_cast<DeviceRange*>(scratch);
  auto* sums = reinterpret_cast<unsigned long long*>(static_cast<char*>(scratch) + table_bytes);
  cudaError_t e = cudaMemcpyAsync(table, host.data(), table_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) e = cudaMemsetAsync(sums, 0, sums_bytes, stream);
  // Enough blocks along x to stream the longest range at full bandwidth;
  // a short range's surplus blocks find no words and exit.
  constexpr int kThreads = 256;
  uint64_t words = longest / 8 + 1;
  unsigned blocks_x = static_cast<unsigned>(
      std::clamp<uint64_t>((words + kThreads * 16 - 1) / (kThreads * 16), 1, 1024));
  for (size_t first = 0; e == cudaSuccess && first < host.size(); first += 65535) {
    unsigned ys = static_cast<unsigned>(std::min<size_t>(65535, host.size() - first));
    FingerprintKernel<<<dim3(blocks_x, ys), kThreads, 0, stream>>>(
        static_cast<const unsigned char*>(base), table + first, key, sums + first);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(out->data(), sums, sums_bytes, cudaMemcpyDeviceToHost, stream);
  cudaError_t freed = cudaFreeAsync(scratch, stream);
  if (e == cudaSuccess) e = freed;
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) return Status::Unavailable(Failed("a kernel or copy", e));
  return Status::Ok();
}

}  // namespace hone
