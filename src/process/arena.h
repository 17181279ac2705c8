// Memory shared between the trusted worker and one sandbox: copies of the
// inputs and the output buffers, nothing else. The CPU backend shares host
// pages (memfd); the CUDA backend shares device memory through CUDA IPC.
// A backend makes its arenas (run/backend.h).
//
// The worker writes inputs and poison and reads results through this
// interface; the sandbox maps the same memory from the arguments
// SandboxArgs() gives it. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone {

struct ArenaRange {
  size_t offset = 0, bytes = 0;
};

class Arena {
 public:
  virtual ~Arena() = default;
  virtual size_t size() const = 0;
  virtual void Write(size_t offset, const void* src, size_t bytes) = 0;
  virtual void Fill(size_t offset, uint8_t pattern, size_t bytes) = 0;
  virtual void Read(size_t offset, void* dst, size_t bytes) = 0;
  // A descriptor the sandbox must inherit (as fd 5), or -1.
  virtual int inherit_fd() const { return -1; }
  // Arguments telling hone-sandbox how to map the arena.
  virtual std::vector<std::string> SandboxArgs() const = 0;
  // The PCI bus id of the device the arena lives on ("0000:1b:00.0"), for a
  // tool that runs one of the candidate's calls on its own (tools/sanitize.h);
  // empty for host memory.
  virtual std::string pci_bus_id() const { return {}; }
  // Completes the worker's writes before a sandbox call reads them.
  virtual Status Sync() { return Status::Ok(); }
  // One fingerprint per range, keyed by `key` (the worker draws it where the
  // candidate cannot see it, so a write cannot be made to cancel out).
  // Completes the worker's own pending writes first. False where the arena
  // cannot fingerprint, or on a device error (Sync() then says which); stray
  // writes are then not looked for this way.
  virtual bool Fingerprint(const std::vector<ArenaRange>& /*ranges*/, uint64_t /*key*/,
                           std::vector<uint64_t>* /*out*/) {
    return false;
  }
};

// Canary bytes in a candidate's arena: before its first buffer and after
// every buffer (process/stray_writes.h), so a write that runs past a buffer
// lands in memory hone watches rather than in the next tensor or outside.
inline constexpr size_t kGuardBytes = size_t{64} << 10;
// After the arena's last buffer: room for a write far past the end.
inline constexpr size_t kTailGuardBytes = size_t{8} << 20;

// Rounds up to the 256-byte alignment every tensor in an arena gets.
inline size_t AlignArena(size_t n) { return (n + 255) / 256 * 256; }

// A tensor of this size or more starts on a multiple of it, as one that
// cudaMalloc or PyTorch's allocator gives a large tensor of its own does.
// Measured on an H200 (docs/PERFORMANCE.md, "Tensor placement"): with large
// tensors 64 KiB plus 256-byte multiples apart, the example suite's fast
// layernorm and fused_chain kernels ran at half the DRAM bandwidth they get
// from separate allocations, with the same bytes moved.
inline constexpr size_t kLargeTensorAlign = size_t{2} << 20;

// Where a tensor of `bytes` placed at `offset` or later starts.
inline size_t TensorStart(size_t offset, size_t bytes) {
  if (bytes < kLargeTensorAlign) return offset;
  return (offset + kLargeTensorAlign - 1) / kLargeTensorAlign * kLargeTensorAlign;
}

}  // namespace hone
