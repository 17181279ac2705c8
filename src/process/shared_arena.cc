#include "process/shared_arena.h"

#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

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

bool SharedArena::Fingerprint(const std::vector<ArenaRange>& ranges, uint64_t key,
                              std::vector<uint64_t>* out) {
  // Large ranges are hashed in pieces on all cores (one core reads about
  // 10 GB/s; an arena of full-size tensors is hundreds of MB), and the
  // pieces' hashes hashed again.
  constexpr size_t kPiece = size_t{8} << 20;
  struct Piece {
    size_t range, offset, bytes;
  };
  std::vector<Piece> pieces;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const ArenaRange& r = ranges[i];
    HONE_CHECK(r.offset + r.bytes <= size_, "fingerprint outside the arena");
    for (size_t at = 0; at < r.bytes || at == 0; at += kPiece)
      pieces.push_back({i, r.offset + at, std::min(kPiece, r.bytes - at)});
  }
  std::vector<uint64_t> hashes(pieces.size());
  auto hash_from = [&](size_t first, size_t stride) {
    for (size_t p = first; p < pieces.size(); p += stride)
      hashes[p] = XXH3_64bits_withSeed(data_ + pieces[p].offset, pieces[p].bytes, key);
  };
  size_t threads =
      std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), pieces.size() / 4 + 1);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(hash_from, t, threads);
  hash_from(0, threads);
  for (auto& t : pool) t.join();
  std::vector<std::vector<uint64_t>> per_range(ranges.size());
  for (size_t p = 0; p < pieces.size(); ++p) per_range[pieces[p].range].push_back(hashes[p]);
  out->clear();
  for (const auto& h : per_range)
    out->push_back(h.size() == 1 ? h[0]
                                 : XXH3_64bits_withSeed(h.data(), h.size() * sizeof h[0], key));
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
