#include "cuda/cuda_env.h"

#include <cuda_runtime_api.h>

#include "build/compiler_builder.h"
#include "core/paths.h"
#include "cuda/gpu.h"

namespace hone {

Status SetUpCudaEnv(int device, const std::filesystem::path& cache_dir, EvaluatorEnv& env,
                    std::unique_ptr<Builder>* builder) {
  HONE_ASSIGN_OR_RETURN(GpuInfo gpu, QueryGpu(device));
  HONE_ASSIGN_OR_RETURN(auto b, CompilerBuilder::Create(CompileCache(cache_dir / "builds"),
                                                        CudaCompilerOptions(gpu.arch())));
  HONE_ASSIGN_OR_RETURN(env.cuda_sandbox_executable, FindSandboxExecutable("hone-sandbox-cuda"));
  HONE_ASSIGN_OR_RETURN(env.gpu, LoadOrMeasureGpu(gpu, cache_dir));
  env.device = device;
  env.sample_gpu = [gpu] { return ReadGpuState(gpu); };
  env.gpu_free_bytes = [device]() -> int64_t {
    size_t free = 0, total = 0;
    if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&free, &total) != cudaSuccess)
      return 0;  // unknown: the plan takes the largest settings
    return static_cast<int64_t>(free);
  };
  env.cuda_builder = b.get();
  *builder = std::move(b);
  return Status::Ok();
}

}  // namespace hone
