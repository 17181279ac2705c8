#include "sandbox/cuda/standalone.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace hone::sandbox {
namespace {

std::string Err(const std::string& what, cudaError_t e) {
  return what + ": " + cudaGetErrorString(e);
}

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::stringstream ss(s);
  while (std::getline(ss, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

}  // namespace

bool ParseStandaloneTensor(const std::string& spec, StandaloneTensor* out) {
  std::vector<std::string> parts = SplitOn(spec, ':');
  if (parts.size() < 3) return false;
  if (parts[0] != "in" && parts[0] != "out") return false;
  out->input = parts[0] == "in";
  char* end = nullptr;
  long dtype = std::strtol(parts[1].c_str(), &end, 10);
  if (parts[1].empty() || *end || dtype < HONE_F32 || dtype > HONE_BOOL) return false;
  out->dtype = static_cast<hone_dtype>(dtype);
  out->shape.clear();
  if (!parts[2].empty())
    for (const std::string& d : SplitOn(parts[2], 'x')) {
      long long v = std::strtoll(d.c_str(), &end, 10);
      if (d.empty() || *end || v < 0) return false;
      out->shape.push_back(v);
    }
  if (out->shape.size() > HONE_MAX_DIMS) return false;
  // The file's path may itself hold colons.
  out->file.clear();
  for (size_t i = 3; i < parts.size(); ++i) out->file += (i > 3 ? ":" : "") + parts[i];
  return out->input ? !out->file.empty() : out->file.empty();
}

bool StandaloneCall::Prepare(const std::string& pci_bus_id,
                             const std::vector<StandaloneTensor>& tensors, std::string* error) {
  int device = 0;
  if (cudaError_t e = cudaDeviceGetByPCIBusId(&device, pci_bus_id.c_str()); e != cudaSuccess)
    return *error = Err("cudaDeviceGetByPCIBusId", e), false;
  if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
    return *error = Err("cudaSetDevice", e), false;
  cudaStream_t s = nullptr;
  if (cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); e != cudaSuccess)
    return *error = Err("creating the stream", e), false;
  stream_ = s;
  for (const StandaloneTensor& t : tensors) {
    hone_tensor h{};
    h.dtype = t.dtype;
    h.ndim = static_cast<int32_t>(t.shape.size());
    int64_t n = 1;
    for (int d = h.ndim - 1; d >= 0; --d) {
      h.shape[d] = t.shape[static_cast<size_t>(d)];
      h.stride[d] = n;
      n *= h.shape[d];
    }
    size_t bytes = static_cast<size_t>(n) * hone_dtype_size(t.dtype);
    // An empty tensor still gets an address of its own.
    if (cudaError_t e = cudaMalloc(&h.data, bytes ? bytes : 1); e != cudaSuccess)
      return *error = Err("allocating a tensor of " + std::to_string(bytes) + " bytes", e), false;
    if (t.input) {
      std::ifstream in(t.file, std::ios::binary);
      std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (data.size() != bytes)
        return *error = t.file + ": expected " + std::to_string(bytes) + " bytes, read " +
                        std::to_string(data.size()),
               false;
      if (cudaError_t e = cudaMemcpy(h.data, data.data(), bytes, cudaMemcpyHostToDevice);
          e != cudaSuccess)
        return *error = Err("uploading " + t.file, e), false;
    }
    (t.input ? inputs_ : outputs_).push_back(h);
  }
  return true;
}

int StandaloneCall::Run(int (*forward)(const hone_args*),
                        size_t (*workspace)(const hone_tensor*, int32_t), std::string* error) {
  hone_args args{};
  args.inputs = inputs_.data();
  args.num_inputs = static_cast<int32_t>(inputs_.size());
  args.outputs = outputs_.data();
  args.num_outputs = static_cast<int32_t>(outputs_.size());
  args.stream = stream_;
  if (workspace) {
    args.workspace_bytes = workspace(args.inputs, args.num_inputs);
    if (args.workspace_bytes > 0) {
      if (cudaError_t e = cudaMalloc(&args.workspace, args.workspace_bytes); e != cudaSuccess)
        return *error = Err("allocating the workspace", e), 2;
    }
  }
  int rc = forward(&args);
  cudaError_t e = cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return *error = Err("CUDA error during the call", e), 4;
  if (rc != 0) return *error = "hone_forward returned " + std::to_string(rc), 3;
  return 0;
}

}  // namespace hone::sandbox
