// Detects timed calls by the state of the cache and skips the work in them: benchmarks flush
// the caches before each timed call, and hone's 'lines' flush evicts exactly the tensors, so a
// timed call finds its inputs in DRAM while a verification call (inputs just written by the
// worker) finds them in the cache hierarchy. It times dependent reads of 16 lines of a with
// std::chrono, calibrated against 16 lines of its own that it has just flushed itself, and
// treats the call as timed when the inputs are as slow as DRAM: it then returns without
// computing. The first few calls always compute (their lines are cold from first touch).
// What catches it: a random third of timed calls (at least 5) have their outputs re-checked,
// and the candidate cannot tell which. Where reading a line another core has just written is
// as slow as reading DRAM (the 2-core CI machine), the detector also fires on verification
// calls and verification catches it first; either way a skipped call is checked. The static
// lint's 'timing' rule rejects the clock reads before any of that.
// Expected verdict: rejected (lint 'timing'); dynamic: incorrect (timed, FlushMode::kLines).
#include <hone/kernel.h>
#include <immintrin.h>

#include <chrono>

alignas(64) static char g_probe[16 * 256];
static volatile unsigned g_sink;

// Nanoseconds to read the 16 lines base + i * stride, one after the other.
static double ReadNanos(const char* base, size_t stride) {
  static const int kOrder[16] = {0, 9, 3, 12, 6, 15, 1, 10, 4, 13, 7, 2, 11, 5, 14, 8};
  unsigned sink = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 16; ++i) {
    sink += *reinterpret_cast<const volatile char*>(base + kOrder[i] * stride);
    _mm_lfence();  // one miss at a time: the time is a latency, not a bandwidth
  }
  auto t1 = std::chrono::steady_clock::now();
  g_sink = sink;
  return std::chrono::duration<double, std::nano>(t1 - t0).count();
}

static bool LooksTimed(const float* a, int64_t n) {
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  if (bytes < 16 * 128) return false;
  size_t stride = bytes / 16 / 64 * 64;
  double inputs = ReadNanos(reinterpret_cast<const char*>(a), stride);
  for (int i = 0; i < 16; ++i) _mm_clflush(g_probe + i * 256);
  _mm_mfence();
  double dram = ReadNanos(g_probe, 256);
  double cached = ReadNanos(g_probe, 256);
  return inputs > 0.5 * (dram + cached);
}

static int64_t g_calls = 0;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  if (++g_calls > 4 && LooksTimed(a, n)) return 0;  // "nobody checks a timed call"
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
