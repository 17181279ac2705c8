// The test device's memory shared with one sandbox. Its pages are host
// memory (a memfd, mapped by hone-sandbox as it maps the CPU's arena), but
// the arena is its own implementation, as a device's is: the worker's writes
// and fills are staged and reach the shared pages only when Sync() completes
// them (or when the worker reads or fingerprints the arena, which see its
// own writes first), as the worker's copies into a GPU's memory complete on
// its stream. So a pipeline that called a sandbox without Sync() would show
// the candidate stale buffers, and its verdicts would say so.
//
// Not thread-safe, as run/backend.h's arenas; the counts are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/testdev/testdev_counts.h"
#include "process/arena.h"

namespace hone::testing {

class TestDevArena : public Arena {
 public:
  // Status::Io when the memory cannot be made.
  static Result<std::unique_ptr<TestDevArena>> Create(size_t bytes,
                                                      std::shared_ptr<TestDevCounts> counts);
  ~TestDevArena() override;
  TestDevArena(const TestDevArena&) = delete;
  TestDevArena& operator=(const TestDevArena&) = delete;

  size_t size() const override { return size_; }
  void Write(size_t offset, const void* src, size_t bytes) override;
  void Fill(size_t offset, uint8_t pattern, size_t bytes) override;
  void Read(size_t offset, void* dst, size_t bytes) override;
  int inherit_fd() const override { return fd_; }
  std::vector<std::string> SandboxArgs() const override;
  Status Sync() override;
  bool Fingerprint(const std::vector<ArenaRange>& ranges, uint64_t key,
                   std::vector<uint64_t>* out) override;

 private:
  // One staged write (bytes) or fill (pattern over `bytes` of length).
  struct Staged {
    size_t offset = 0;
    std::vector<uint8_t> bytes;
    int pattern = -1;  // a fill's byte; -1 for a write
    size_t length = 0;
  };
  TestDevArena(int fd, uint8_t* data, size_t size, std::shared_ptr<TestDevCounts> counts)
      : fd_(fd), data_(data), size_(size), counts_(std::move(counts)) {}
  // Completes the staged writes in order; whether there were any.
  bool Complete();

  int fd_;
  uint8_t* data_;
  size_t size_;
  std::shared_ptr<TestDevCounts> counts_;
  std::vector<Staged> staged_;
};

}  // namespace hone::testing
