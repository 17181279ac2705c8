#include "core/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

namespace hone {

FileLock::FileLock(const std::filesystem::path& path, std::chrono::milliseconds wait) {
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ >= 0) {
    fchmod(fd_, 0666);  // past the umask: another user's process may wait here too
  } else {
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);  // another user's file
  }
  auto until = std::chrono::steady_clock::now() + wait;
  while (fd_ >= 0 && !held_) {
    held_ = flock(fd_, LOCK_EX | LOCK_NB) == 0;
    if (held_ || std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace hone
