// A persistent, spinning worker pool: one std::thread started on the first call busy-waits on
// an atomic generation counter, so the next call's work starts without a wake-up. Each call
// publishes its work, does its half, and waits for the worker's half before returning, so the
// result is always complete and right. Between calls the worker keeps spinning on its core,
// which on a shared machine also takes that core from the reference being timed next to it:
// the baseline looks slower, the candidate faster.
// What catches it: the idle-CPU check (a thread of the sandbox still running while the
// candidate is idle); the static lint's 'host-thread' rule before that.
// Expected verdict: rejected (lint 'host-thread'); dynamic: rejected (work after return).
#include <hone/kernel.h>

#include <atomic>
#include <thread>

static std::atomic<uint64_t> g_generation{0}, g_done{0};
static const float* g_a;
static const float* g_b;
static float* g_out;
static int64_t g_begin, g_end;

static void Spin() {
  uint64_t seen = 0;
  for (;;) {
    uint64_t gen = g_generation.load(std::memory_order_acquire);
    if (gen == seen) continue;  // busy-wait: never sleeps
    for (int64_t i = g_begin; i < g_end; ++i) g_out[i] = g_a[i] + 2.0f * g_b[i];
    seen = gen;
    g_done.store(gen, std::memory_order_release);
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  static bool started = false;
  if (!started) {
    started = true;
    std::thread(Spin).detach();
  }
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  g_a = a;
  g_b = b;
  g_out = out;
  g_begin = n / 2;
  g_end = n;
  uint64_t gen = g_generation.load() + 1;
  g_generation.store(gen, std::memory_order_release);
  for (int64_t i = 0; i < n / 2; ++i) out[i] = a[i] + 2.0f * b[i];
  while (g_done.load(std::memory_order_acquire) != gen) {
  }
  return 0;
}
