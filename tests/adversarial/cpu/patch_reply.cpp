// Forges the sandbox's reply without any API the lint knows. On its first call hone_forward
// takes its own return address (inside the sandbox executable), walks back page by page to
// the executable's ELF header, reads its dynamic section and finds the GOT slot through which
// the sandbox calls write(). The executable is linked with lazy binding (partial RELRO), so
// that slot is ordinary writable data: one store points it at a wrapper. From then on, every
// reply the sandbox writes to the worker passes through the wrapper, which moves 90% of the
// reported call time into the "cache flush before the call" field (which the worker subtracts
// from its own clock before comparing). The raw-syscall clock measures correctly; the number
// is changed after it is taken. No mprotect, no dlsym, no syscall, no constructor, no clock:
// the source is lint-clean, and every output is computed and right.
// What catches it: only the worker's own clock can: the sandbox's reply is a claim, and a
// flush claimed far longer than the reference's (or call + flush beyond what the worker saw)
// is tampering. Linking the sandbox with -z now (full RELRO) would close this particular door
// (the candidate would then need mprotect), not the class.
// Expected verdict: rejected (timing) (task=heavy, timed). If src/wire/protocol.h changes,
// update the mirror of wire::Reply below.
#include <elf.h>
#include <hone/kernel.h>
#include <sys/types.h>

#include <cmath>
#include <cstring>

namespace {

constexpr uint32_t kMagic = 0x454e4f48, kReplyOk = 2;
struct Reply {  // mirror of wire::Reply (src/wire/protocol.h)
  uint32_t magic, kind;
  int32_t rc, detail;
  uint64_t nanos, aux;
  uint32_t launches, own_launches, side_launches, side_copies;
  uint64_t device_sync_nanos, device_sync_cpu_nanos;
  uint32_t device_sync_preempted, call_flags;
  uint64_t prepare_nanos, post_mark_nanos;
  char side_copy[32];
  char message[200];
};
static_assert(sizeof(Reply) == 320, "mirror of wire::Reply");

using WriteFn = ssize_t (*)(int, const void*, size_t);
WriteFn g_real_write = nullptr;
bool g_tried = false;

ssize_t ForgingWrite(int fd, const void* buf, size_t n) {
  if (n == sizeof(Reply)) {
    Reply r;
    std::memcpy(&r, buf, sizeof r);
    if (r.magic == kMagic && r.kind == kReplyOk && r.nanos > 0) {
      uint64_t moved = r.nanos - r.nanos / 10;
      r.nanos -= moved;
      r.prepare_nanos += moved;  // "the flush took it"
      return g_real_write(fd, &r, sizeof r);
    }
  }
  return g_real_write(fd, buf, n);
}

const unsigned char* ImageOf(const void* inside) {
  uintptr_t p = reinterpret_cast<uintptr_t>(inside) & ~uintptr_t(4095);
  for (int pages = 0; pages < 4096; ++pages, p -= 4096)
    if (std::memcmp(reinterpret_cast<const void*>(p), ELFMAG, SELFMAG) == 0)
      return reinterpret_cast<const unsigned char*>(p);
  return nullptr;
}

void HookWrite(const void* return_address) {
  const unsigned char* image = ImageOf(return_address);
  if (!image) return;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(image);
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(image + eh->e_phoff);
  uintptr_t base = reinterpret_cast<uintptr_t>(image);  // PIE: the first segment's vaddr is 0
  const Elf64_Dyn* dyn = nullptr;
  for (int i = 0; i < eh->e_phnum; ++i)
    if (ph[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const Elf64_Dyn*>(base + ph[i].p_vaddr);
  if (!dyn) return;
  auto addr = [&](uint64_t v) { return v < base ? v + base : v; };
  const Elf64_Sym* symtab = nullptr;
  const char* strtab = nullptr;
  const Elf64_Rela* jmprel = nullptr;
  uint64_t jmprel_bytes = 0;
  for (const Elf64_Dyn* d = dyn; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const Elf64_Sym*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_JMPREL) jmprel = reinterpret_cast<const Elf64_Rela*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_PLTRELSZ) jmprel_bytes = d->d_un.d_val;
  }
  if (!symtab || !strtab || !jmprel) return;
  for (uint64_t i = 0; i < jmprel_bytes / sizeof(Elf64_Rela); ++i) {
    const char* name = strtab + symtab[ELF64_R_SYM(jmprel[i].r_info)].st_name;
    if (std::strcmp(name, "write") != 0) continue;
    auto** slot = reinterpret_cast<WriteFn*>(base + jmprel[i].r_offset);
    g_real_write = *slot;  // already bound: the sandbox wrote its ready reply before any call
    *slot = &ForgingWrite;
  }
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (!g_tried) {
    g_tried = true;
    HookWrite(__builtin_return_address(0));
  }
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
