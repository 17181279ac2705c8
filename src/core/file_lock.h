// An advisory lock on a file (flock), so that processes of one machine take
// turns at a piece of work that each would otherwise do at once: one GPU
// profile at a time, one build of a precompiled header.
//
// The lock is held while the object lives and released when it is destroyed
// (or when the process dies: the kernel drops it with the descriptor). The
// file is created if missing, writable by every user so that another user's
// process can wait on it too; a file that cannot be opened gives a lock that
// is simply not held. Waiting polls every 50 ms and never fails: held() says
// whether the lock came within the wait, and the caller decides what to do
// without it. Not for threads of one process (flock locks belong to the open
// file, so a second FileLock in the same process waits like any other).
#pragma once

#include <chrono>
#include <filesystem>

namespace hone {

class FileLock {
 public:
  FileLock(const std::filesystem::path& path, std::chrono::milliseconds wait);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool held() const { return held_; }
  // The locked descriptor, to hand the lock to a child process
  // (SpawnDetached's keep_fd): the lock then lasts until the child has
  // closed its copy too. -1 when the file could not be opened.
  int descriptor() const { return fd_; }

 private:
  int fd_ = -1;
  bool held_ = false;
};

}  // namespace hone
