// Device memory shared with one CUDA sandbox through CUDA IPC.
//
// The worker allocates it and exports one IPC handle; the sandbox opens that
// handle and sees only this allocation. Pristine inputs and expected outputs
// live elsewhere (host memory or private device allocations) and are never
// exported. Writes are ordered on a worker stream; Sync() reports any CUDA
// error as a Status. Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "process/arena.h"

namespace hone {

class CudaArena : public Arena {
 public:
  static Result<std::unique_ptr<CudaArena>> Create(size_t bytes, int device);
  ~CudaArena() override;

  size_t size() const override { return size_; }
  void Write(size_t offset, const void* src, size_t bytes) override;
  void Fill(size_t offset, uint8_t pattern, size_t bytes) override;
  void Read(size_t offset, void* dst, size_t bytes) override;
  std::vector<std::string> SandboxArgs() const override;
  std::string pci_bus_id() const override { return pci_bus_id_; }
  Status Sync() override;
  // On the arena's stream, at device bandwidth (cuda/device_fingerprint.h).
  bool Fingerprint(const std::vector<ArenaRange>& ranges, uint64_t key,
                   std::vector<uint64_t>* out) override;

  // For the worker's own kernels and copies (cuda/cuda_trusted_store.h).
  char* data() { return data_; }
  void* stream() { return stream_; }

 private:
  CudaArena() = default;
  void Note(int err, const char* what);
  int device_ = 0;
  char* data_ = nullptr;
  size_t size_ = 0;
  void* stream_ = nullptr;
  std::string handle_hex_;
  std::string pci_bus_id_;
  std::string error_;  // first CUDA error since the last Sync()
};

}  // namespace hone
