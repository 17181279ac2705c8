// One call of a CUDA candidate on tensors of its own, for compute-sanitizer
// (tools/sanitize.h): `hone-sandbox-cuda --standalone-tensor ...`. Built only into
// hone-sandbox-cuda.
//
// Each tensor is its own device allocation, so memcheck sees every tensor's
// bounds (the worker's arena is one allocation, and a write from one tensor
// into the next would be inside it). Inputs are written by this process
// from files the worker made, so initcheck counts them as initialised;
// outputs and the workspace are left uninitialised, so a read before a write
// is reported. No CUPTI and no IPC: the sanitizer instruments the process.
//
// Prepare() runs before the sandbox confines itself (it reads the input
// files and creates the context); Run() after the candidate is loaded.
// Failures come back as messages, for the sandbox to print.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hone/kernel.h"

namespace hone::sandbox {

struct StandaloneTensor {
  bool input = true;
  hone_dtype dtype = HONE_F32;
  std::vector<int64_t> shape;
  std::string file;  // inputs: its bytes, dense, row-major
};

// "in:0:4096x512:/scratch/input_0.bin", "out:0:4096x512", "out:0:" (a
// scalar); false on anything else.
bool ParseStandaloneTensor(const std::string& spec, StandaloneTensor* out);

class StandaloneCall {
 public:
  bool Prepare(const std::string& pci_bus_id, const std::vector<StandaloneTensor>& tensors,
               std::string* error);
  // 0 when the call returned 0 and the device reported no error; otherwise
  // non-zero, with *error saying what happened.
  int Run(int (*forward)(const hone_args*), size_t (*workspace)(const hone_tensor*, int32_t),
          std::string* error);

 private:
  std::vector<hone_tensor> inputs_, outputs_;
  void* stream_ = nullptr;
};

}  // namespace hone::sandbox
