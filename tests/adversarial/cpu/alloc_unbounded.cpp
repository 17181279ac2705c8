// Allocates 64 MiB blocks in an endless loop, writes one byte to every 4 KiB page of each
// block (so the memory is really committed) and keeps every pointer in a volatile sink (so
// the compiler cannot elide the allocations). Like much LLM code it never checks malloc's
// result: once RLIMIT_AS makes malloc return NULL, the first page write faults (SIGSEGV).
// Without a memory limit this candidate exhausts the host's memory: run it only in the sandbox.
// Expected verdict: runtime_error.
#include <hone/kernel.h>

#include <cstdlib>

static void* volatile g_sink;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const size_t kBlock = size_t(64) << 20;
  const size_t kPage = 4096;
  for (;;) {
    char* p = static_cast<char*>(std::malloc(kBlock));
    for (size_t off = 0; off < kBlock; off += kPage) p[off] = static_cast<char>(off >> 12);
    g_sink = p;
  }
  (void)args;
  return 0;
}
