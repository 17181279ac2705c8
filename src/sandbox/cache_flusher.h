// Evicts the CPU caches before a timed call: a buffer twice the last-level
// cache written through, and a binding's own lines flushed.
//
// Owns its flush buffer, mapped at the first flush and kept for the
// process's life. Threads: the serving thread. Failure: a buffer that cannot
// be mapped ends the sandbox (Die).
#pragma once

#include <cstddef>

#include "sandbox/binding.h"

namespace hone::sandbox {

// Evicts the CPU caches by writing a buffer twice the last-level cache (at
// most 128 MiB of it: run/sandbox_launcher.cc). The buffer is made at the
// first flush (a warm-up call), so a sandbox that only verifies never pays
// for it.
class CacheFlusher {
 public:
  explicit CacheFlusher(size_t bytes) : bytes_(bytes) {}
  void FlushAll();
  // clflushopt where the CPU has it: plain clflush is serialised and costs
  // more than writing the whole flush buffer once the tensors pass ~8 MB.
  // `workspace`: its lines too (--flush lines); the llc flush adds only the
  // tensors', which both sides have alike, so their flush times compare.
  static void FlushLines(const Binding& b, bool workspace);
  // Whether FlushLines costs about what it flushes (clflushopt), not a
  // serialised clflush per line.
  static bool CheapLineFlush();

 private:
  size_t bytes_;
  char* buf_ = nullptr;
};

}  // namespace hone::sandbox
