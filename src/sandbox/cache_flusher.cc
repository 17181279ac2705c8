#include "sandbox/cache_flusher.h"

#include <sys/mman.h>

#include "sandbox/control_channel.h"

namespace hone::sandbox {
namespace {

__attribute__((target("clflushopt"))) void FlushLinesOpt(char* p, size_t n) {
  for (size_t i = 0; i < n; i += 64) __builtin_ia32_clflushopt(p + i);
}

}  // namespace

void CacheFlusher::FlushAll() {
  if (bytes_ == 0) return;
  if (!buf_) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) Die("cannot allocate the cache-flush buffer");
    buf_ = static_cast<char*>(p);
  }
  for (size_t i = 0; i < bytes_; i += 64) buf_[i] = static_cast<char>(buf_[i] + 1);
  asm volatile("" ::: "memory");
}

void CacheFlusher::FlushLines(const Binding& b, bool workspace) {
  for (const auto& [p, n] : b.regions) {
    if (!workspace && p == static_cast<char*>(b.workspace)) continue;
    if (CheapLineFlush()) {
      FlushLinesOpt(p, n);
    } else {
      for (size_t i = 0; i < n; i += 64) __builtin_ia32_clflush(p + i);
    }
  }
  __builtin_ia32_mfence();
}

bool CacheFlusher::CheapLineFlush() {
  static const bool opt = __builtin_cpu_supports("clflushopt");
  return opt;
}

}  // namespace hone::sandbox
