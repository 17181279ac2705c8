// A block of host memory shared with one sandbox (memfd + MAP_SHARED).
//
// The worker owns it; the sandbox maps the same pages through an inherited
// descriptor. Only candidate-visible data lives here: copies of inputs and
// the output buffers. Not thread-safe; one worker thread drives it.
#pragma once

#include <cstddef>
#include <memory>

#include "core/status.h"

namespace hone {

class SharedArena {
 public:
  static Result<std::unique_ptr<SharedArena>> Create(size_t bytes);
  ~SharedArena();
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;

  char* data() { return data_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; }

 private:
  SharedArena(int fd, char* data, size_t size) : fd_(fd), data_(data), size_(size) {}
  int fd_;
  char* data_;
  size_t size_;
};

// Rounds up to the 256-byte alignment every tensor in an arena gets.
inline size_t AlignArena(size_t n) { return (n + 255) / 256 * 256; }

}  // namespace hone
