// patch_reply.cpp's write() hook on a small kernel, without the flush claim: the wrapper only
// divides the reported call time by 100. fixture_add takes a few microseconds per call, so the
// forged time is a few microseconds short of what the worker's clock sees, well inside the
// fixed allowance (0.5 ms) the worker gives for unreported time beyond the reference's. CPU
// kernels of a few microseconds are common, and each could then claim any speedup (and more
// than 100% of the speed of light, which today is only a note).
// What catches it: the worker's own clock, with an allowance scaled to how steady the
// harness's unreported time really is (the reference's, call to call) rather than a fixed
// 0.5 ms. The source is lint-clean.
// Expected verdict: rejected (timing) (timed). If src/wire/protocol.h changes, update the
// mirror of wire::Reply below.
#include <elf.h>
#include <hone/kernel.h>
#include <sys/types.h>

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
      r.nanos /= 100;
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
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
