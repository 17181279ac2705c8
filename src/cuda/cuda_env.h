// Sets up the CUDA side of an evaluator environment on one GPU: the nvcc
// builder for the GPU's own architecture, the CUDA sandbox, the measured
// ceilings and NVML sampling. Fails with a Status naming what is missing
// (no driver, no device, no hone-sandbox-cuda).
#pragma once

#include <filesystem>
#include <memory>

#include "build/builder.h"
#include "run/evaluator.h"

namespace hone {

Status SetUpCudaEnv(int device, const std::filesystem::path& cache_dir, EvaluatorEnv& env,
                    std::unique_ptr<Builder>* builder);

}  // namespace hone
