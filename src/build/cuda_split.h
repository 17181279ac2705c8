// Takes a load_inline CUDA source apart so that torch's headers are parsed
// once, by gcc with a precompiled header, instead of three times by nvcc's
// front ends (cudafe++, cicc and the host gcc: about 55 of a cold build's
// 60 s on an H100 host).
//
// The device half holds the kernels, their __device__ helpers and the types
// and constants both sides use, plus one launcher per kernel:
//
//   void hone_launch_k(dim3 g, dim3 b, size_t smem, cudaStream_t s, <k's params>)
//   { k<<<g, b, smem, s>>>(<k's params>); }
//
// and is compiled by nvcc without torch. The host half is the rest (torch
// includes, host functions, PYBIND11_MODULE) with every `k<<<g, b[, m[, s]]>>>(a)`
// rewritten to `hone_launch_k(g, b, m or 0, s or 0, a)`; it starts with
// torch/extension.h so gcc's precompiled header applies. A call converts its
// arguments to the parameters' types as a launch does, and a missing stream is
// 0, the legacy default stream, as in the launch: what runs is unchanged.
// Template kernels get template launchers, instantiated in the device half for
// what the host object uses (LauncherInstantiations, from `nm -C`).
//
// The split is conservative: anything it does not understand (conditional
// preprocessing at file level, host code that names a kernel other than to
// launch it, kernels in anonymous namespaces or taking torch's types,
// explicit specialisations, macros that declare things) makes it return
// Status::Invalid with the reason, and the caller builds the file whole, as
// torch would. So does any compile error of either half: a split can only
// make a build faster, never change its verdict.
//
// Pure functions: safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace hone {

struct CudaSplit {
  std::string device_source;
  std::string host_source;
  std::vector<std::string> kernels;  // the kernels given launchers
  bool templated = false;  // a launcher is a template: instantiate before the device compile
};

// `file_name` is what #line directives name (compile errors point at the
// original). `host_defines` are NAME or NAME=VALUE macros the nvcc compile
// had and the C++ compile lacks (torch's -D__CUDA_NO_HALF_OPERATORS__ and
// the like); the host half defines them after torch/extension.h, where they
// cannot spoil the precompiled header. Status::Invalid says why the source
// is built whole.
Result<CudaSplit> SplitCudaSource(std::string_view source, const std::string& file_name,
                                  const std::vector<std::string>& host_defines = {});

// Explicit instantiations (C++ text to append to the device half) of the
// launcher templates that `nm_output` (`nm -C --undefined-only` of the host
// half's object) shows the host needs. Status::Invalid when one names a type
// the device half cannot (anonymous namespaces, lambdas, torch's types).
Result<std::string> LauncherInstantiations(std::string_view nm_output);

}  // namespace hone
