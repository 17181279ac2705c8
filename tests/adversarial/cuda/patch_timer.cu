// Computes the heavy task correctly, but makes itself look 10x faster by patching hone's timer.
// A load-time constructor walks the main program's dynamic relocations (dl_iterate_phdr: the
// first object is hone-sandbox-cuda; DT_JMPREL and DT_RELA, JUMP_SLOT and GLOB_DAT entries),
// finds the GOT slot through which the sandbox calls cudaEventElapsedTime, makes its page
// writable with mprotect (read-write only, which the sandbox's W^X rule allows) and stores a
// pointer to a wrapper that calls the real function and divides the result by 10.
// What must catch it: the static lint (dynamic-loading: dl_iterate_phdr and the ELF walk;
// memory-protection: mprotect; load-time-code: the constructor; timing: cudaEvent*). Without the
// lint, the worker's wall clock around each timed call: the reported time is a tenth of the
// kernel's, so the unexplained rest of the call (wall minus reported) exceeds the reference's by
// far more than the allowance (~0.2 ms plus half the reported time). That needs the timed case
// to take well over 0.25 ms on the GPU.
// Expected verdict (task heavy, timed): rejected (lint); lint off: rejected ("timing ...").
#include <cuda_runtime.h>
#include <elf.h>
#include <hone/kernel.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

__global__ void heavy_kernel(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = a[i], y = b[i];
  float acc = 0;
  for (int k = 0; k < 64; ++k) acc += sinf(x * float(k + 1) * 0.01f + y);
  out[i] = acc;
}

// Calls the real cudaEventElapsedTime through this library's own binding, then shrinks it.
static cudaError_t ShrunkElapsed(float* ms, cudaEvent_t start, cudaEvent_t end) {
  cudaError_t e = cudaEventElapsedTime(ms, start, end);
  if (e == cudaSuccess && ms) *ms *= 0.1f;
  return e;
}

static volatile int g_patched = 0;                    // slots rewritten
static uintptr_t g_relro_start = 0, g_relro_end = 0;  // pages RELRO made read-only

static void PatchSlot(void** slot) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t at = reinterpret_cast<uintptr_t>(slot);
  // ld.so write-protects the RELRO pages that lie wholly inside PT_GNU_RELRO; the rest of the
  // GOT (lazy binding) shares writable pages with .data and is written as it is.
  if (at >= (g_relro_start & ~(page - 1)) && at < (g_relro_end & ~(page - 1))) {
    void* start = reinterpret_cast<void*>(at & ~(page - 1));
    if (mprotect(start, page, PROT_READ | PROT_WRITE) != 0) return;
    *slot = reinterpret_cast<void*>(&ShrunkElapsed);
    mprotect(start, page, PROT_READ);  // as RELRO left it
  } else {
    *slot = reinterpret_cast<void*>(&ShrunkElapsed);
  }
  g_patched = g_patched + 1;
}

static void PatchRelocations(ElfW(Addr) base, const ElfW(Rela) * rel, size_t bytes,
                             const ElfW(Sym) * symtab, const char* strtab) {
  if (!rel || !symtab || !strtab) return;
  for (size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    const unsigned type = ELF64_R_TYPE(rel[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const char* name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
    if (std::strncmp(name, "cudaEventElapsedTime", 20) == 0)
      PatchSlot(reinterpret_cast<void**>(base + rel[i].r_offset));
  }
}

static int PatchMainProgram(struct dl_phdr_info* info, size_t, void*) {
  const ElfW(Addr) base = info->dlpi_addr;
  // ld.so has usually relocated these addresses in place already; add the base if not.
  auto at = [base](ElfW(Addr) p) { return p < base ? p + base : p; };
  for (int p = 0; p < info->dlpi_phnum; ++p) {
    if (info->dlpi_phdr[p].p_type != PT_GNU_RELRO) continue;
    g_relro_start = base + info->dlpi_phdr[p].p_vaddr;
    g_relro_end = g_relro_start + info->dlpi_phdr[p].p_memsz;
  }
  for (int p = 0; p < info->dlpi_phnum; ++p) {
    if (info->dlpi_phdr[p].p_type != PT_DYNAMIC) continue;
    const ElfW(Rela)* jmprel = nullptr, *rela = nullptr;
    size_t jmprel_bytes = 0, rela_bytes = 0;
    const ElfW(Sym)* symtab = nullptr;
    const char* strtab = nullptr;
    for (auto* d = reinterpret_cast<const ElfW(Dyn)*>(base + info->dlpi_phdr[p].p_vaddr);
         d->d_tag != DT_NULL; ++d) {
      switch (d->d_tag) {
        case DT_JMPREL:
          jmprel = reinterpret_cast<const ElfW(Rela)*>(at(d->d_un.d_ptr));
          break;
        case DT_PLTRELSZ:
          jmprel_bytes = d->d_un.d_val;
          break;
        case DT_RELA:
          rela = reinterpret_cast<const ElfW(Rela)*>(at(d->d_un.d_ptr));
          break;
        case DT_RELASZ:
          rela_bytes = d->d_un.d_val;
          break;
        case DT_SYMTAB:
          symtab = reinterpret_cast<const ElfW(Sym)*>(at(d->d_un.d_ptr));
          break;
        case DT_STRTAB:
          strtab = reinterpret_cast<const char*>(at(d->d_un.d_ptr));
          break;
        default:
          break;
      }
    }
    PatchRelocations(base, jmprel, jmprel_bytes, symtab, strtab);
    PatchRelocations(base, rela, rela_bytes, symtab, strtab);
  }
  return 1;  // the first object is the main program: stop there
}

__attribute__((constructor)) static void PatchTimer() {
  dl_iterate_phdr(PatchMainProgram, nullptr);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  heavy_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
