#include "cuda/cuda_compiler.h"

namespace hone {

CompilerOptions CudaCompilerOptions(const std::string& arch) {
  std::string compute = "compute_" + arch.substr(3);  // sm_90a -> compute_90a
  CompilerOptions o;
  o.backend = "cuda";
  o.compiler = "nvcc";
  // Device code at -O3; the host side of a candidate is launch glue, so the
  // host compiler runs at -O1 (a third of a cold build at -O3).
  o.flags = {"-std=c++17", "-O3",        "-gencode",  "arch=" + compute + ",code=" + arch,
             "-shared",    "-Xcompiler", "-fPIC,-O1", "--cudart",
             "shared",     "-Xptxas",    "-v",        "-Xlinker",
             "-z,defs"};
  o.ptxas_report = true;
  return o;
}

}  // namespace hone
