// The candidate as the sandbox program holds it: its entry points (the
// candidate contract, include/hone/kernel.h) and one binding, the tensors,
// workspace and memory regions of the calls the worker makes on it
// (wire::Op::kBind). Plain data; the call server (sandbox/call_server.cc)
// owns the bindings and their workspaces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "hone/kernel.h"

namespace hone::sandbox {

struct Binding {
  std::vector<hone_tensor> inputs, outputs;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  std::vector<std::pair<char*, size_t>> regions;  // for line flushes
};

using ForwardFn = int (*)(const hone_args*);
using WorkspaceFn = size_t (*)(const hone_tensor*, int32_t);

}  // namespace hone::sandbox
