// Captures its launch into a CUDA graph once per set of buffers (stream capture on args->stream,
// thread-local mode) and from then on replays the instantiated graph with cudaGraphLaunch on
// args->stream, to save the per-launch cost. The graph's kernel reads the inputs afresh each
// time, so the result is right, and everything runs on args->stream.
// What must catch it: the static lint's stream rule (cudaGraph*, stream capture). Without the
// lint, the launch tracking names the kernels recorded while a stream captures and carries them
// to the graph instantiated from that capture (GraphOwnership in src/sandbox/cuda/cuda_sandbox.cc),
// so a replay of a graph of the candidate's own kernels on args->stream counts as its own work:
// the run-time checks alone let this legitimate graph pass, as the compat catalogue's
// cuda_graph_cuda.py does.
// Expected verdict: rejected (lint: stream); lint off: passed.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

struct Captured {
  const void *a, *b, *out;
  int64_t n;
  cudaGraphExec_t exec;
};

static Captured g_graphs[32];
static int g_count = 0;

static cudaGraphExec_t Capture(const float* a, const float* b, float* out, int64_t n,
                               cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    return nullptr;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  if (cudaStreamEndCapture(stream, &graph) != cudaSuccess || !graph) return nullptr;
  cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  return e == cudaSuccess ? exec : nullptr;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  cudaGraphExec_t exec = nullptr;
  for (int k = 0; k < g_count && !exec; ++k)
    if (g_graphs[k].a == a && g_graphs[k].b == b && g_graphs[k].out == out && g_graphs[k].n == n)
      exec = g_graphs[k].exec;
  if (!exec) {
    if (g_count == 32 || !(exec = Capture(a, b, out, n, stream))) return 2;
    g_graphs[g_count++] = Captured{a, b, out, n, exec};
  }
  if (cudaGraphLaunch(exec, stream) != cudaSuccess) return 3;
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
