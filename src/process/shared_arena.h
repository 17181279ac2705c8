// A block of host memory shared with one sandbox (memfd + MAP_SHARED).
//
// The worker owns it; the sandbox maps the same pages through an inherited
// descriptor. Only candidate-visible data lives here: copies of inputs and
// the output buffers. Not thread-safe; one worker thread drives it.
#pragma once

#include <cstddef>
#include <memory>

#include "process/arena.h"

namespace hone {

class SharedArena : public Arena {
 public:
  static Result<std::unique_ptr<SharedArena>> Create(size_t bytes);
  ~SharedArena() override;
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;

  char* data() { return data_; }
  size_t size() const override { return size_; }
  int fd() const { return fd_; }

  void Write(size_t offset, const void* src, size_t bytes) override;
  void Fill(size_t offset, uint8_t pattern, size_t bytes) override;
  void Read(size_t offset, void* dst, size_t bytes) override;
  int inherit_fd() const override { return fd_; }
  bool Fingerprint(const std::vector<ArenaRange>& ranges, uint64_t key,
                   std::vector<uint64_t>* out) override;
  std::vector<std::string> SandboxArgs() const override;

 private:
  SharedArena(int fd, char* data, size_t size) : fd_(fd), data_(data), size_(size) {}
  int fd_;
  char* data_;
  size_t size_;
};

}  // namespace hone
