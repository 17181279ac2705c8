#include "cuda/cuda_arena.h"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "cuda/device_fingerprint.h"

namespace hone {

void CudaArena::Note(int err, const char* what) {
  if (err != cudaSuccess && error_.empty())
    error_ = std::string(what) + ": " + cudaGetErrorString(static_cast<cudaError_t>(err));
}

Result<std::unique_ptr<CudaArena>> CudaArena::Create(size_t bytes, int device) {
  std::unique_ptr<CudaArena> a(new CudaArena());
  a->device_ = device;
  a->size_ = AlignArena(bytes == 0 ? 1 : bytes);
  auto fail = [](const char* what, cudaError_t e) {
    return Status::Unavailable(std::string(what) + ": " + cudaGetErrorString(e));
  };
  if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return fail("cudaSetDevice", e);
  void* p = nullptr;
  if (cudaError_t e = cudaMalloc(&p, a->size_); e != cudaSuccess)
    return fail("cudaMalloc of the shared arena", e);
  a->data_ = static_cast<char*>(p);
  cudaStream_t s;
  if (cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); e != cudaSuccess)
    return fail("cudaStreamCreate", e);
  a->stream_ = s;
  cudaIpcMemHandle_t h;
  if (cudaError_t e = cudaIpcGetMemHandle(&h, p); e != cudaSuccess)
    return fail("cudaIpcGetMemHandle", e);
  char hex[2 * sizeof h + 1];
  for (size_t i = 0; i < sizeof h; ++i)
    std::snprintf(hex + 2 * i, 3, "%02x", reinterpret_cast<unsigned char*>(&h)[i]);
  a->handle_hex_ = hex;
  char bus[64] = {0};
  cudaDeviceGetPCIBusId(bus, sizeof bus, device);
  a->pci_bus_id_ = bus;
  return a;
}

CudaArena::~CudaArena() {
  cudaSetDevice(device_);
  if (stream_) cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  if (data_) cudaFree(data_);
  if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void CudaArena::Write(size_t offset, const void* src, size_t bytes) {
  HONE_CHECK(offset + bytes <= size_, "write outside the arena");
  cudaSetDevice(device_);
  // Synchronous: `src` is pageable host memory the caller may reuse at once.
  Note(cudaMemcpy(data_ + offset, src, bytes, cudaMemcpyHostToDevice), "upload to the arena");
}

void CudaArena::Fill(size_t offset, uint8_t pattern, size_t bytes) {
  HONE_CHECK(offset + bytes <= size_, "fill outside the arena");
  cudaSetDevice(device_);
  Note(cudaMemsetAsync(data_ + offset, pattern, bytes, static_cast<cudaStream_t>(stream_)),
       "poisoning the arena");
}

void CudaArena::Read(size_t offset, void* dst, size_t bytes) {
  HONE_CHECK(offset + bytes <= size_, "read outside the arena");
  cudaSetDevice(device_);
  Note(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "arena stream");
  Note(cudaMemcpy(dst, data_ + offset, bytes, cudaMemcpyDeviceToHost), "download from the arena");
}

bool CudaArena::Fingerprint(const std::vector<ArenaRange>& ranges, uint64_t key,
                            std::vector<uint64_t>* out) {
  for (const ArenaRange& r : ranges)
    HONE_CHECK(r.offset + r.bytes <= size_, "fingerprint outside the arena");
  cudaSetDevice(device_);
  Status st = FingerprintOnDevice(data_, ranges, key, stream_, out);
  if (!st.ok() && error_.empty()) error_ = st.message();
  return st.ok();
}

std::vector<std::string> CudaArena::SandboxArgs() const {
  return {"--cuda-pci", pci_bus_id_,     "--arena-ipc",
          handle_hex_,  "--arena-bytes", std::to_string(size_)};
}

Status CudaArena::Sync() {
  cudaSetDevice(device_);
  Note(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "arena stream");
  if (error_.empty()) return Status::Ok();
  Status st = Status::Unavailable("the worker's GPU failed: " + error_);
  error_.clear();
  return st;
}

}  // namespace hone
