#include "cuda/cuda_backend.h"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include "build/compiler_builder.h"
#include "core/paths.h"
#include "cuda/cuda_arena.h"
#include "cuda/cuda_compiler.h"
#include "cuda/cuda_mps.h"
#include "cuda/cuda_traits.h"
#include "cuda/cuda_trusted_store.h"
#include "cuda/gpu.h"
#include "cuda/ncu_profiler.h"
#include "cuda/sharing_probe.h"

namespace hone {
namespace {

// Where the oracle runs a task for GPU `device`: torch's name for it.
std::string OracleDeviceOf(int device) { return "cuda:" + std::to_string(device); }

class CudaBackend : public Backend {
 public:
  static Result<std::unique_ptr<Backend>> Open(const BackendSetup& setup) {
    HONE_ASSIGN_OR_RETURN(GpuInfo gpu, QueryGpu(setup.device));
    BackendParts parts{"cuda", CudaTraits(), nullptr, {}, {}};
    HONE_ASSIGN_OR_RETURN(parts.builder,
                          CompilerBuilder::Create(CompileCache(setup.cache / "builds"),
                                                  CudaCompilerOptions(gpu.arch())));
    HONE_ASSIGN_OR_RETURN(parts.sandbox, FindSandboxExecutable("hone-sandbox-cuda"));
    HONE_ASSIGN_OR_RETURN(parts.machine, LoadOrMeasureGpu(gpu, setup.cache));
    return std::unique_ptr<Backend>(
        new CudaBackend(std::move(parts), std::move(gpu), setup.device));
  }

  std::string oracle_device() const override { return OracleDeviceOf(device_); }
  int64_t FreeMemory() const override {
    size_t free = 0, total = 0;
    if (cudaSetDevice(device_) != cudaSuccess || cudaMemGetInfo(&free, &total) != cudaSuccess)
      return 0;  // unknown: the plan takes the largest settings
    return static_cast<int64_t>(free);
  }
  Result<std::unique_ptr<Arena>> CreateArena(size_t bytes) const override {
    HONE_ASSIGN_OR_RETURN(auto a, CudaArena::Create(bytes, device_));
    return std::unique_ptr<Arena>(std::move(a));
  }
  Result<std::unique_ptr<TrustedStore>> CreateTrustedStore() const override {
    return CreateCudaTrustedStore(device_);
  }
  std::optional<DeviceSample> SampleDevice() const override { return ReadGpuState(gpu_); }
  std::optional<DeviceNeighbours> Neighbours() const override { return ReadGpuNeighbours(gpu_); }
  std::optional<SharingProbe> ProbeSharing() const override { return prober_->Probe(); }
  std::unique_ptr<Profiler> MakeProfiler() const override { return MakeNcuProfiler(); }
  void ConfigureSandbox(SandboxConfig& config) const override {
    config.device_env = CudaMpsClientEnvironment(environ);
  }

 private:
  CudaBackend(BackendParts parts, GpuInfo gpu, int device)
      : Backend(std::move(parts)),
        gpu_(std::move(gpu)),
        device_(device),
        prober_(std::make_unique<SharingProber>(device, gpu_.l2_bytes)) {}
  const GpuInfo gpu_;
  const int device_;
  const std::unique_ptr<SharingProber> prober_;  // thread-safe itself
};

}  // namespace

void RegisterCudaBackend(BackendRegistry& registry) {
  BackendKind cuda;
  cuda.name = "cuda";
  cuda.traits = CudaTraits();
  cuda.present = [] { return GpuCount() > 0; };
  cuda.count = GpuCount;
  cuda.make = CudaBackend::Open;
  cuda.oracle_device = OracleDeviceOf;
  registry.Register(std::move(cuda));
}

}  // namespace hone
