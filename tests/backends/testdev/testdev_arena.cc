#include "backends/testdev/testdev_arena.h"

#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>

namespace hone::testing {

Result<std::unique_ptr<TestDevArena>> TestDevArena::Create(size_t bytes,
                                                           std::shared_ptr<TestDevCounts> counts) {
  size_t size = AlignArena(bytes == 0 ? 1 : bytes);
  int fd = memfd_create("hone-testdev-arena", MFD_CLOEXEC);
  if (fd < 0) return Status::Io(std::string("memfd_create: ") + strerror(errno));
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    close(fd);
    return Status::Io("cannot size the test device's arena to " + std::to_string(size) + " bytes");
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return Status::Io(std::string("mmap the test device's arena: ") + strerror(errno));
  }
  ++counts->arenas;
  return std::unique_ptr<TestDevArena>(
      new TestDevArena(fd, static_cast<uint8_t*>(p), size, std::move(counts)));
}

TestDevArena::~TestDevArena() {
  munmap(data_, size_);
  close(fd_);
}

void TestDevArena::Write(size_t offset, const void* src, size_t bytes) {
  HONE_CHECK(offset + bytes <= size_, "write outside the test device's arena");
  const auto* from = static_cast<const uint8_t*>(src);
  staged_.push_back({offset, std::vector<uint8_t>(from, from + bytes), -1, bytes});
  ++counts_->staged_writes;
}

void TestDevArena::Fill(size_t offset, uint8_t pattern, size_t bytes) {
  HONE_CHECK(offset + bytes <= size_, "fill outside the test device's arena");
  staged_.push_back({offset, {}, pattern, bytes});
  ++counts_->staged_writes;
}

bool TestDevArena::Complete() {
  if (staged_.empty()) return false;
  for (const Staged& s : staged_) {
    if (s.pattern >= 0)
      std::memset(data_ + s.offset, s.pattern, s.length);
    else
      std::memcpy(data_ + s.offset, s.bytes.data(), s.length);
  }
  staged_.clear();
  return true;
}

void TestDevArena::Read(size_t offset, void* dst, size_t bytes) {
  HONE_CHECK(offset + bytes <= size_, "read outside the test device's arena");
  Complete();
  std::memcpy(dst, data_ + offset, bytes);
}

std::vector<std::string> TestDevArena::SandboxArgs() const {
  return {"--arena-fd", "5", "--arena-bytes", std::to_string(size_)};
}

Status TestDevArena::Sync() {
  if (Complete()) ++counts_->syncs;
  return Status::Ok();
}

bool TestDevArena::Fingerprint(const std::vector<ArenaRange>& ranges, uint64_t key,
                               std::vector<uint64_t>* out) {
  Complete();
  out->clear();
  for (const ArenaRange& r : ranges) {
    HONE_CHECK(r.offset + r.bytes <= size_, "fingerprint outside the test device's arena");
    out->push_back(XXH3_64bits_withSeed(data_ + r.offset, r.bytes, key));
  }
  return true;
}

}  // namespace hone::testing
