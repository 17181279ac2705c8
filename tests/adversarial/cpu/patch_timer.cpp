// Slows the harness's clock: at load time (a constructor, run while the sandbox loads the
// library) it walks every loaded object's dynamic relocations (dl_iterate_phdr, DT_JMPREL and
// DT_RELA), finds the GOT slots bound to clock_gettime, makes them writable with mprotect and
// points them at a clock whose CLOCK_MONOTONIC runs 10x slow. A harness that times the call
// with std::chrono::steady_clock or clock_gettime (through libstdc++'s or its own GOT) then
// reports a tenth of the real time. The kernel itself computes correctly.
// What catches it: the static lint ('load-time-code', 'memory-protection', 'dynamic-loading').
// Without the lint it gains nothing: the sandbox reads its clock with the syscall instruction
// itself, not through any GOT, and the worker's own clock around each call bounds what the
// sandbox reports. Evaluated on the compute-heavy fixture, where a 10x slow clock would show
// as a 10x speedup.
// Expected verdict: rejected (lint); dynamic: passed with a speedup of at most 5 (task=heavy,
// timed).
#include <elf.h>
#include <hone/kernel.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstring>

static int64_t g_epoch_ns = 0;
static volatile int g_patched = 0;

static int SlowClock(clockid_t id, timespec* ts) {
  if (syscall(SYS_clock_gettime, id, ts) != 0) return -1;
  if (id == CLOCK_MONOTONIC) {
    int64_t ns = ts->tv_sec * 1000000000ll + ts->tv_nsec;
    ns = g_epoch_ns + (ns - g_epoch_ns) / 10;
    ts->tv_sec = ns / 1000000000ll;
    ts->tv_nsec = ns % 1000000000ll;
  }
  return 0;
}

static void PatchSlot(void** slot) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t start = reinterpret_cast<uintptr_t>(slot) & ~(page - 1);
  // RELRO made the GOT read-only after relocation: make it writable again and leave it so.
  if (mprotect(reinterpret_cast<void*>(start), page, PROT_READ | PROT_WRITE) != 0) return;
  *slot = reinterpret_cast<void*>(&SlowClock);
  g_patched = g_patched + 1;
}

static void PatchRelocations(ElfW(Addr) base, const ElfW(Rela) * rel, size_t bytes,
                             const ElfW(Sym) * symtab, const char* strtab) {
  for (size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    uint32_t type = ELF64_R_TYPE(rel[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const char* name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
    if (std::strcmp(name, "clock_gettime") == 0 || std::strcmp(name, "__clock_gettime") == 0)
      PatchSlot(reinterpret_cast<void**>(base + rel[i].r_offset));
  }
}

static int PatchObject(dl_phdr_info* info, size_t, void*) {
  const ElfW(Addr) base = info->dlpi_addr;
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn)*>(base + info->dlpi_phdr[i].p_vaddr);
  if (!dyn || std::strstr(info->dlpi_name, "linux-vdso")) return 0;
  // The loader relocates these entries in place; the vDSO's are left as offsets.
  auto addr = [&](ElfW(Addr) v) { return v < base ? v + base : v; };
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const ElfW(Rela)* jmprel = nullptr, *rela = nullptr;
  size_t jmprel_bytes = 0, rela_bytes = 0;
  for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        symtab = reinterpret_cast<const ElfW(Sym)*>(addr(d->d_un.d_ptr));
        break;
      case DT_STRTAB:
        strtab = reinterpret_cast<const char*>(addr(d->d_un.d_ptr));
        break;
      case DT_JMPREL:
        jmprel = reinterpret_cast<const ElfW(Rela)*>(addr(d->d_un.d_ptr));
        break;
      case DT_PLTRELSZ:
        jmprel_bytes = d->d_un.d_val;
        break;
      case DT_RELA:
        rela = reinterpret_cast<const ElfW(Rela)*>(addr(d->d_un.d_ptr));
        break;
      case DT_RELASZ:
        rela_bytes = d->d_un.d_val;
        break;
    }
  }
  if (!symtab || !strtab) return 0;
  if (jmprel) PatchRelocations(base, jmprel, jmprel_bytes, symtab, strtab);
  if (rela) PatchRelocations(base, rela, rela_bytes, symtab, strtab);
  return 0;
}

__attribute__((constructor)) static void InstallSlowClock() {
  timespec now{};
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &now);
  g_epoch_ns = now.tv_sec * 1000000000ll + now.tv_nsec;
  dl_iterate_phdr(PatchObject, nullptr);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) {
    float acc = 0;
    for (int k = 0; k < 64; ++k) acc += std::sin(a[i] * float(k + 1) * 0.01f + b[i]);
    out[i] = acc;
  }
  return 0;
}
