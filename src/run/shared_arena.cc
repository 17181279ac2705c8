#include "run/shared_arena.h"

#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>

namespace hone {

Result<std::unique_ptr<SharedArena>> SharedArena::Create(size_t bytes) {
  size_t size = AlignArena(bytes == 0 ? 1 : bytes);
  int fd = memfd_create("hone-arena", MFD_CLOEXEC);
  if (fd < 0) return Status::Io(std::string("memfd_create: ") + strerror(errno));
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    close(fd);
    return Status::Io("cannot size the shared arena to " + std::to_string(size) + " bytes");
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return Status::Io(std::string("mmap shared arena: ") + strerror(errno));
  }
  return std::unique_ptr<SharedArena>(new SharedArena(fd, static_cast<char*>(p), size));
}

void SharedArena::Write(size_t offset, const void* src, size_t bytes) {
  HONE_CHECK(offset + bytes <= size_, "write outside the arena");
  std::memcpy(data_ + offset, src, bytes);
}

void SharedArena::Fill(size_t offset, uint8_t pattern, size_t bytes) {
  HONE_CHECK(offset + bytes <= size_, "fill outside the arena");
  std::memset(data_ + offset, pattern, bytes);
}

bool SharedArena::Fingerprint(size_t offset, size_t bytes, uint64_t* out) {
  HONE_CHECK(offset + bytes <= size_, "fingerprint outside the arena");
  *out = XXH3_64bits(data_ + offset, bytes);
  return true;
}

void SharedArena::Read(size_t offset, void* dst, size_t bytes) {
  HONE_CHECK(offset + bytes <= size_, "read outside the arena");
  std::memcpy(dst, data_ + offset, bytes);
}

std::vector<std::string> SharedArena::SandboxArgs() const {
  return {"--arena-fd", "5", "--arena-bytes", std::to_string(size_)};
}

SharedArena::~SharedArena() {
  munmap(data_, size_);
  close(fd_);
}

}  // namespace hone
