// The host/device split of load_inline CUDA sources (cuda_split.h), on
// sources written the way models write them (its tokenizer:
// cxx_tokens_test.cc). No compiler runs here:
// tests/integration/torch_extension_test.cc builds the halves.
#include "build/cuda_split.h"

#include <gtest/gtest.h>

#include "build/cuda_split_step.h"

namespace hone {
namespace {

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// KernelBench's own prompt example, as models copy it.
const char* kElementwise = R"(#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void elementwise_add_kernel(const float* a, const float* b, float* out, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        out[idx] = a[idx] + b[idx];
    }
}

torch::Tensor elementwise_add_cuda(torch::Tensor a, torch::Tensor b) {
    auto size = a.numel();
    auto out = torch::zeros_like(a);

    const int block_size = 256;
    const int num_blocks = (size + block_size - 1) / block_size;

    elementwise_add_kernel<<<num_blocks, block_size>>>(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), size);

    return out;
}
)";

TEST(CudaSplitTest, TheKernelBenchExampleSplitsIntoLauncherAndCall) {
  auto s = SplitCudaSource(kElementwise, "cuda.cu", {"__CUDA_NO_HALF_OPERATORS__"});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->kernels, std::vector<std::string>{"elementwise_add_kernel"});
  EXPECT_FALSE(s->templated);
  // The device half: the kernel and its launcher, no torch.
  EXPECT_FALSE(Contains(s->device_source, "#include <torch"));
  EXPECT_FALSE(Contains(s->device_source, "torch::"));
  EXPECT_TRUE(Contains(s->device_source, "__global__ void elementwise_add_kernel("));
  EXPECT_TRUE(Contains(s->device_source,
                       "void hone_launch_elementwise_add_kernel(dim3 hone_grid, dim3 hone_block, "
                       "size_t hone_shmem, cudaStream_t hone_stream, const float* a, const float* "
                       "b, float* out, int size) {\n  elementwise_add_kernel<<<hone_grid, "
                       "hone_block, hone_shmem, hone_stream>>>(a, b, out, size);"))
      << s->device_source;
  EXPECT_TRUE(Contains(s->device_source, "#include <cuda_runtime.h>"));
  // The host half: torch first (the precompiled header), then the defines
  // nvcc had, the launcher declared, the launch a call on stream 0.
  EXPECT_EQ(s->host_source.find("#include <torch/extension.h>"), s->host_source.find('\n') + 1);
  EXPECT_TRUE(Contains(s->host_source, "#define __CUDA_NO_HALF_OPERATORS__ 1"));
  EXPECT_FALSE(Contains(s->host_source, "__global__"));
  EXPECT_FALSE(Contains(s->host_source, "<<<"));
  EXPECT_TRUE(Contains(s->host_source,
                       "hone_launch_elementwise_add_kernel(num_blocks, block_size, 0, 0, "
                       "a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), size);"))
      << s->host_source;
  EXPECT_TRUE(Contains(s->host_source, "#line 11 \"cuda.cu\""));
}

TEST(CudaSplitTest, StreamSharedMemoryAndHelpersGoWhereTheyAreUsed) {
  const char* src = R"(#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cooperative_groups.h>
#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be CUDA")
const int kThreads = 256;
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}
__host__ __device__ inline int div_up(int a, int b) { return (a + b - 1) / b; }
__align__(8) struct Params { float scale; int n; };
__global__ void __launch_bounds__(kThreads) scaled(const float* __restrict__ x, float* y, Params p) {
  extern __shared__ float buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) y[i] = warp_sum(x[i]) * p.scale;
}
torch::Tensor run(torch::Tensor x) {
  CHECK_CUDA(x);
  auto y = torch::empty_like(x);
  Params p{2.f, (int)x.numel()};
  auto stream = at::cuda::getCurrentCUDAStream();
  scaled<<<div_up(p.n, kThreads), kThreads, kThreads * sizeof(float), stream>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), p);
  return y;
}
)";
  auto s = SplitCudaSource(src, "cuda.cu");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const std::string& d = s->device_source;
  const std::string& h = s->host_source;
  EXPECT_TRUE(Contains(d, "warp_sum")) << d;
  EXPECT_FALSE(Contains(h, "warp_sum"));
  EXPECT_FALSE(Contains(d, "ATen/cuda")) << d;
  EXPECT_TRUE(Contains(h, "ATen/cuda/CUDAContext.h"));
  EXPECT_TRUE(Contains(d, "cooperative_groups.h"));
  EXPECT_FALSE(Contains(h, "cooperative_groups.h"));
  for (const char* both :
       {"const int kThreads = 256;", "inline int div_up", "struct Params", "#define CHECK_CUDA"}) {
    EXPECT_TRUE(Contains(d, both)) << both;
    EXPECT_TRUE(Contains(h, both)) << both;
  }
  EXPECT_TRUE(Contains(h,
                       "hone_launch_scaled(div_up(p.n, kThreads), kThreads, kThreads * "
                       "sizeof(float), stream, \n      x.data_ptr<float>()"))
      << h;
  EXPECT_TRUE(Contains(d,
                       "cudaStream_t hone_stream, const float* __restrict__ x, float* y, "
                       "Params p) {\n  scaled<<<"))
      << d;
}

TEST(CudaSplitTest, TemplateKernelsUnderAtDispatchGetTemplateLaunchers) {
  const char* src = R"(#include <torch/extension.h>
template <typename scalar_t, int kUnroll = 4>
__global__ void relu_kernel(const scalar_t* x, scalar_t* y, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0 ? x[i] : scalar_t(0);
}
torch::Tensor relu(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int64_t n = x.numel();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "relu", ([&] {
    relu_kernel<scalar_t><<<(n + 255) / 256, 256>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
  }));
  return y;
}
)";
  auto s = SplitCudaSource(src, "cuda.cu");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->templated);
  EXPECT_TRUE(
      Contains(s->host_source,
               "template <typename scalar_t, int kUnroll = 4>\nvoid hone_launch_relu_kernel("))
      << s->host_source;
  EXPECT_TRUE(
      Contains(s->host_source, "hone_launch_relu_kernel<scalar_t>((n + 255) / 256, 256, 0, 0, "));
  EXPECT_TRUE(Contains(s->device_source, "relu_kernel<scalar_t, kUnroll><<<hone_grid"))
      << s->device_source;
}

TEST(CudaSplitTest, NamespacedKernelsKeepTheirQualifier) {
  const char* src = R"(#include <torch/extension.h>
namespace ops {
__global__ void fill(float* y, float v, int n) { int i = threadIdx.x; if (i < n) y[i] = v; }
}  // namespace ops
void fill_it(torch::Tensor y) {
  ops::fill<<<1, 32>>>(y.data_ptr<float>(), 1.f, (int)y.numel());
}
)";
  auto s = SplitCudaSource(src, "cuda.cu");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(Contains(s->host_source, "ops::hone_launch_fill(1, 32, 0, 0, y.data_ptr<float>()"))
      << s->host_source;
  EXPECT_TRUE(Contains(s->host_source, "namespace ops {\n"));
  EXPECT_TRUE(Contains(s->device_source, "namespace ops {\n"));
}

TEST(CudaSplitTest, AKernelWithoutArgumentsIsLaunchedWithoutATrailingComma) {
  const char* src =
      "#include <torch/extension.h>\n__global__ void tick() {}\n"
      "void go() { tick<<<1, 1>>>(); }\n";
  auto s = SplitCudaSource(src, "cuda.cu");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(Contains(s->host_source, "hone_launch_tick(1, 1, 0, 0)")) << s->host_source;
}

// Each of these must be built whole, with a reason that says why.
TEST(CudaSplitTest, WhatItDoesNotUnderstandIsBuiltWhole) {
  const std::string kernel = "__global__ void k(float* y) { y[0] = 1.f; }\n";
  struct Case {
    std::string source, reason;
  } cases[] = {
      {"#ifdef FAST\n#define N 1\n#endif\n" + kernel, "#ifdef at file level"},
      {kernel + "void f() { cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                "1 << 16); }\n",
       "names device symbol 'k'"},
      {"__constant__ float w[4];\n" + kernel +
           "void f(const float* h) { cudaMemcpyToSymbol(w, h, 16); }\n",
       "names device symbol 'w'"},
      {"namespace {\n" + kernel + "}\nvoid f(float* y) { k<<<1, 1>>>(y); }\n",
       "anonymous namespace"},
      {"__global__ void k(torch::PackedTensorAccessor32<float, 1> y) {}\n", "torch's types"},
      {"#define LAUNCH(g) k<<<g, 1>>>\n" + kernel, "a macro launches"},
      {"extern \"C\" {\nvoid f();\n}\n" + kernel, "extern \"C\""},
      {kernel + "__global__ void k(float* y, int n) {}\n", "defined twice"},
      {"__global__ void k(float*);\n", "declared but not defined"},
      {"__global__ void k(float*, int n) {}\n", "unnamed parameter"},
      {kernel + "void f(float* y) { hone_launch_k(1, 1, 0, 0, y); }\n", "prefix"},
      {"int main() { return 0; }\n", "no kernel"},
      {kernel + "void f(float* y) {\n#ifdef __CUDACC__\n k<<<1,1>>>(y);\n#endif\n}\n",
       "__CUDACC__"},
  };
  for (const auto& c : cases) {
    auto s = SplitCudaSource(c.source, "cuda.cu");
    ASSERT_FALSE(s.ok()) << c.source;
    EXPECT_TRUE(Contains(s.status().message(), c.reason))
        << c.source << "\n-> " << s.status().message();
  }
}

TEST(CudaSplitTest, InstantiationsComeFromTheHostObjectsUndefinedLaunchers) {
  std::string nm =
      "                 U cudaGetLastError\n"
      "                 U void hone_launch_relu_kernel<float, 4>(dim3, dim3, unsigned long, "
      "CUstream_st*, float const*, float*, long)\n"
      "                 U void ops::hone_launch_fill<double>(dim3, dim3, unsigned long, "
      "CUstream_st*, double*, int)\n"
      "                 U hone_launch_plain(dim3, dim3, unsigned long, CUstream_st*, float*)\n";
  auto inst = LauncherInstantiations(nm);
  ASSERT_TRUE(inst.ok()) << inst.status().message();
  EXPECT_EQ(*inst,
            "template void hone_launch_relu_kernel<float, 4>(dim3, dim3, unsigned long, "
            "CUstream_st*, float const*, float*, long);\n"
            "template void ops::hone_launch_fill<double>(dim3, dim3, unsigned long, "
            "CUstream_st*, double*, int);\n");
  auto half = LauncherInstantiations(
      "U void hone_launch_k<c10::Half>(dim3, dim3, unsigned long, CUstream_st*, c10::Half*)\n");
  EXPECT_FALSE(half.ok());
}

TEST(CudaSplitStepTest, TorchsNvccFlagsPassAndUnknownOnesKeepTheStepWhole) {
  std::vector<std::string> cxx = {"c++",      "-DTORCH_EXTENSION_NAME=m",
                                  "-isystem", "/t",
                                  "-fPIC",    "-std=c++17",
                                  "-c",       "/b/main.cpp",
                                  "-o",       "main.o"};
  // torch 2.11 writes -MD -MF; older ones --generate-dependencies-with-compile.
  std::vector<std::string> nvcc = {"nvcc",
                                   "--generate-dependencies-with-compile",
                                   "--dependency-output",
                                   "cuda.cuda.o.d",
                                   "-MD",
                                   "-MF",
                                   "cuda.cuda.o.d",
                                   "-DTORCH_EXTENSION_NAME=m",
                                   "-isystem",
                                   "/t",
                                   "-D__CUDA_NO_HALF_OPERATORS__",
                                   "-UFOO",
                                   "--expt-relaxed-constexpr",
                                   "-gencode=arch=compute_90a,code=sm_90a",
                                   "--compiler-options",
                                   "'-fPIC'",
                                   "-O3",
                                   "--use_fast_math",
                                   "-std=c++17",
                                   "-c",
                                   "/b/cuda.cu",
                                   "-o",
                                   "cuda.cuda.o"};
  // torch 2.11 names its CC: the host half takes the C++ step's compiler.
  nvcc.insert(nvcc.begin() + 1, {"-ccbin", "/opt/gcc/bin/gcc"});
  auto defines = HostOnlyDefines(nvcc, cxx);
  ASSERT_TRUE(defines.ok()) << defines.status().message();
  EXPECT_EQ(*defines, (std::vector<std::string>{"__CUDA_NO_HALF_OPERATORS__", "!FOO"}));
  for (std::vector<std::string> extra :
       {std::vector<std::string>{"--keep"}, std::vector<std::string>{"-Xcompiler", "-fopenmp"},
        std::vector<std::string>{"-rdc=true"}}) {
    std::vector<std::string> more = nvcc;
    more.insert(more.end() - 4, extra.begin(), extra.end());
    EXPECT_FALSE(HostOnlyDefines(more, cxx).ok()) << extra[0];
  }
}

}  // namespace
}  // namespace hone
