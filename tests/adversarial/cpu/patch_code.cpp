// Rewrites the harness's own code at load time. The sandbox times hone_forward with raw
// clock_gettime system calls inlined into its call loop (mov $228,%eax; mov $1,%edi; syscall:
// CLOCK_MONOTONIC), which no GOT patch reaches. While the sandbox loads the library (seccomp's
// post-load filter, which forbids PROT_EXEC, is not yet in force) a constructor finds those
// instruction sequences in the executable's text segment, makes the page writable (mprotect
// RW: writable, not executable, so W^X holds), changes the clock id to
// CLOCK_THREAD_CPUTIME_ID and makes the page executable again (RX: not writable). From then on
// the sandbox reports the CPU time of its main thread instead of the elapsed time, and
// hone_forward does all its work on OpenMP worker threads while the main thread sleeps at the
// barrier: the reported time drops to microseconds, the results stay right.
// What catches it: the static lint ('load-time-code', 'memory-protection'). Without the lint,
// the worker's clock around each timed call: the time it sees beyond what the sandbox reports
// must match the reference's (src/run/evaluator.cc, CheckReportedTimes).
// Expected verdict: rejected (lint); dynamic: rejected (timing does not add up) (task=heavy,
// timed).
#include <hone/kernel.h>
#include <link.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>

static int g_sites = 0;

static bool Match(const unsigned char* p, const unsigned char* end, const unsigned char* pat,
                  size_t n) {
  return p + n <= end && std::memcmp(p, pat, n) == 0;
}

// Patches every "mov $1,%edi" that sits with a "mov $228,%eax" right before a syscall.
static void PatchText(unsigned char* text, size_t bytes) {
  static const unsigned char kMovEax228[] = {0xB8, 0xE4, 0x00, 0x00, 0x00};
  static const unsigned char kMovEdi1[] = {0xBF, 0x01, 0x00, 0x00, 0x00};
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  unsigned char* end = text + bytes;
  for (unsigned char* p = text + 32; p + 2 <= end; ++p) {
    if (p[0] != 0x0F || p[1] != 0x05) continue;  // syscall
    unsigned char *eax = nullptr, *edi = nullptr;
    for (unsigned char* q = p - 32; q < p; ++q) {
      if (Match(q, p, kMovEax228, 5)) eax = q;
      if (Match(q, p, kMovEdi1, 5)) edi = q;
    }
    if (!eax || !edi) continue;
    uintptr_t start = reinterpret_cast<uintptr_t>(edi + 1) & ~(page - 1);
    void* pg = reinterpret_cast<void*>(start);
    if (mprotect(pg, page, PROT_READ | PROT_WRITE) != 0) continue;
    edi[1] = 0x03;  // CLOCK_THREAD_CPUTIME_ID
    mprotect(pg, page, PROT_READ | PROT_EXEC);
    ++g_sites;
  }
}

static int FindExecutable(dl_phdr_info* info, size_t, void*) {
  if (info->dlpi_name && info->dlpi_name[0]) return 0;  // the main program has no name
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      PatchText(reinterpret_cast<unsigned char*>(info->dlpi_addr + ph.p_vaddr), ph.p_memsz);
  }
  return 1;
}

__attribute__((constructor)) static void PatchHarnessClock() {
  dl_iterate_phdr(FindExecutable, nullptr);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  static bool told = false;
  if (!told) {
    told = true;
    std::printf("patch_code: %d clock site(s) patched\n", g_sites);
  }
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  int threads = omp_get_max_threads() < 2 ? 2 : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  {
    // Thread 0 (the sandbox's main thread, whose CPU time is now the clock) does nothing and
    // sleeps at the closing barrier; the others split the work.
    int workers = omp_get_num_threads() - 1, w = omp_get_thread_num() - 1;
    if (w >= 0) {
      int64_t chunk = (n + workers - 1) / workers;
      int64_t end = (w + 1) * chunk < n ? (w + 1) * chunk : n;
      for (int64_t i = w * chunk; i < end; ++i) {
        float acc = 0;
        for (int k = 0; k < 64; ++k) acc += std::sin(a[i] * float(k + 1) * 0.01f + b[i]);
        out[i] = acc;
      }
    }
  }
  return 0;
}
