// Memorises outputs by a hash of the whole input: a grid-wide kernel hashes every element of a
// and b (an order-free sum of scrambled words, one atomic per block), a one-thread kernel looks
// the hash up in a 4-entry table in device memory, and the main kernel either copies the output
// it saved for that hash or computes (and saves) a new one. No false hits, no host round trip,
// all on args->stream. Against a benchmark whose timed inputs come from fixed seeds (the same
// few input sets every repetition and every run), every timed call after the first few would be
// a copy: on this task about 2 x 4 bytes read and 4 written per element instead of 64 sines.
// What must catch it: timed calls get fresh inputs from an unpredictable seed, so nothing timed
// is ever memorised; verification calls are right (the second run on the same inputs replays the
// right result). It must pass, without a speedup the honest kernel does not have.
// Expected verdict (task heavy, timed): passed, speedup at most 3.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

constexpr int kSlots = 4;

struct Table {
  unsigned long long sum;  // hash_kernel's accumulator, cleared by decide_kernel
  unsigned long long key[kSlots];
  int valid[kSlots];
  int next;   // round-robin victim
  int hit;    // this call replays slot `hit`, or -1
  int store;  // on a miss, the slot this call's result is saved to
};

__device__ __forceinline__ unsigned long long Scramble(unsigned long long x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void hash_kernel(const float* __restrict__ a, const float* __restrict__ b, int64_t n,
                            Table* table) {
  __shared__ unsigned long long warp_sums[32];
  unsigned long long h = 0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const unsigned long long bits =
        (static_cast<unsigned long long>(__float_as_uint(a[i])) << 32) | __float_as_uint(b[i]);
    h += Scramble(bits ^ Scramble(static_cast<unsigned long long>(i)));
  }
  for (int o = 16; o > 0; o >>= 1) h += __shfl_xor_sync(0xffffffffu, h, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = h;
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned long long block = 0;
  for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) block += warp_sums[w];
  atomicAdd(&table->sum, block);
}

__global__ void decide_kernel(int64_t n, Table* table) {
  const unsigned long long h = table->sum ^ Scramble(static_cast<unsigned long long>(n));
  table->sum = 0;  // ready for the next call
  table->hit = -1;
  for (int s = 0; s < kSlots; ++s)
    if (table->valid[s] && table->key[s] == h) table->hit = s;
  if (table->hit >= 0) return;
  const int s = table->next;
  table->next = (s + 1) % kSlots;
  table->key[s] = h;
  table->valid[s] = 1;  // filled by heavy_or_replay_kernel, which runs before any later lookup
  table->store = s;
}

__global__ void heavy_or_replay_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ out, int64_t n,
                                       float* __restrict__ saved, const Table* __restrict__ table) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int hit = table->hit;
  if (hit >= 0) {
    out[i] = saved[hit * n + i];
    return;
  }
  const float x = a[i], y = b[i];
  float acc = 0;
  for (int k = 0; k < 64; ++k) acc += sinf(x * float(k + 1) * 0.01f + y);
  out[i] = acc;
  saved[table->store * n + i] = acc;
}

struct Entry {
  int64_t n;
  float* saved;  // kSlots results of n elements
  Table* table;
};

static Entry g_entries[16];
static int g_count = 0;

static Entry* EntryFor(int64_t n, cudaStream_t stream) {
  for (int k = 0; k < g_count; ++k)
    if (g_entries[k].n == n) return &g_entries[k];
  if (g_count == 16) return nullptr;
  Entry e{n, nullptr, nullptr};
  if (cudaMalloc(&e.saved, static_cast<size_t>(kSlots) * n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&e.table, sizeof(Table)) != cudaSuccess ||
      cudaMemsetAsync(e.table, 0, sizeof(Table), stream) != cudaSuccess)
    return nullptr;
  g_entries[g_count] = e;
  return &g_entries[g_count++];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  Entry* e = EntryFor(n, stream);
  if (!e) return 2;
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  const unsigned hash_blocks = blocks < 1024 ? blocks : 1024;
  hash_kernel<<<hash_blocks, 256, 0, stream>>>(a, b, n, e->table);
  decide_kernel<<<1, 1, 0, stream>>>(n, e->table);
  heavy_or_replay_kernel<<<blocks, 256, 0, stream>>>(a, b, out, n, e->saved, e->table);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
