// The CUDA backend's compiler: nvcc for one GPU architecture, with ptxas's
// report of each kernel's resources (build/ptxas_report.h). Built with or
// without a CUDA toolkit (a value; finding nvcc is the builder's, at
// CompilerBuilder::Create), so that tests and the harness benchmark can
// name it on any machine. Pure.
#pragma once

#include <string>

#include "build/compiler_builder.h"

namespace hone {

// nvcc for one GPU architecture, e.g. "sm_90a" (Hopper's own instructions).
CompilerOptions CudaCompilerOptions(const std::string& arch);

}  // namespace hone
