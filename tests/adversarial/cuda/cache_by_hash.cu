// Caches results by a cheap fingerprint of the inputs: a one-warp kernel hashes 64 elements of a
// and of b (spread evenly over the tensors) and looks the hash up in a 4-entry table in device
// memory; the main kernel then either copies the saved result of a matching earlier call or
// computes out and saves it. Everything stays on args->stream and nothing waits for the host.
// A benchmark that rotates a few fixed input sets through its timed calls (as hone once did: 4
// value sets) would hit every time after the first round and time a copy instead of 64 sines per
// element.
// What must catch it: timed calls get fresh inputs from an unpredictable seed, so the table never
// hits while timed and the kernel always computes. It is right in every verification call (the
// second run on the same inputs hits, and replays the right result), so it must pass, with no
// speedup over the reference beyond what the honest kernel has.
// Expected verdict (task heavy, timed): passed, speedup at most 3.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

constexpr int kSlots = 4;

struct Table {
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

__device__ unsigned long long Sample(const float* a, const float* b, int64_t n, int t) {
  const int64_t i = n > 1 ? static_cast<int64_t>(t) * (n - 1) / 63 : 0;
  const unsigned long long bits =
      (static_cast<unsigned long long>(__float_as_uint(a[i])) << 32) | __float_as_uint(b[i]);
  return Scramble(bits ^ Scramble(static_cast<unsigned long long>(t)));
}

// One warp: 64 samples, summed (order-free), then lane 0 consults the table.
__global__ void lookup_kernel(const float* __restrict__ a, const float* __restrict__ b, int64_t n,
                              Table* table) {
  const int lane = threadIdx.x;
  unsigned long long h = Sample(a, b, n, lane) + Sample(a, b, n, lane + 32);
  for (int o = 16; o > 0; o >>= 1) h += __shfl_xor_sync(0xffffffffu, h, o);
  if (lane != 0) return;
  h ^= Scramble(static_cast<unsigned long long>(n));
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
  lookup_kernel<<<1, 32, 0, stream>>>(a, b, n, e->table);
  heavy_or_replay_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
      a, b, out, n, e->saved, e->table);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
