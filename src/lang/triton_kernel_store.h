// A Triton file's compiled kernels, kept for that same file's later
// evaluations. Triton compiles every kernel a ModelNew file launches during
// its first call (LLVM, ptxas: about 1.3 s per kernel variant, and an
// autotuner compiles each config), inside the candidate's sandbox, into a
// cache private to the evaluation. Evaluating the same file again (`hone
// eval` then `hone bench`, a suite benched twice, a reward service sent the
// same reply twice) would pay it all again.
//
// The store is content-addressed by the candidate file's bytes: an entry
// is read only by a sandbox running exactly that file, so nothing one
// candidate compiled (or planted) ever reaches another. What an entry
// holds was written by the candidate's own sandbox, so it is as untrusted
// as the file; it can only carry something from one evaluation of the file
// to the next, which buys nothing: outputs stored by an earlier evaluation
// were computed by these same bytes, and every timed call (checked too, at
// random) gets inputs drawn in each process from an unpredictable seed
// (pytorch/oracle_reference.cc, TimingPoolSeed), so the file must compute them.
// docs/VERIFICATION.md ("Triton's caches") states the rule.
//
// Kept: only what Triton writes for a kernel (its metadata, group file,
// cubin and intermediate forms, under Triton's own key folder), copied by
// hone once the sandbox has loaded, up to kMaxEntryBytes per file; never
// Triton's C modules (python/hone_triton_build.py keeps those) or anything
// else in the scratch folder. The least recently used entries go once the
// store passes kMaxStoreBytes.
//
// Thread-compatible: one evaluating thread per object. Several processes
// may share a store: key folders appear whole (renamed into place), and a
// lost race only costs a copy. Failures only cost speed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

namespace hone {

class TritonKernelStore {
 public:
  static constexpr uintmax_t kMaxEntryBytes = 32ull << 20;
  static constexpr uintmax_t kMaxStoreBytes = 2ull << 30;

  // `root`: where entries are kept ($HONE_CACHE/triton-kernels). `view`:
  // where sandboxes read them when they cannot read `root` (as root they
  // run as 'nobody'); empty: they read `root`.
  TritonKernelStore(std::filesystem::path root, std::filesystem::path view);

  // The folder a sandbox running the file with these bytes reads its
  // kernels from: made (empty at first) and readable by all; empty when it
  // cannot be made. Remembered for Keep.
  std::filesystem::path Open(std::string_view candidate_source);

  // Copies into the entry last opened the kernels Triton compiled into
  // `private_cache` (the sandbox's TRITON_CACHE_DIR) that it lacks.
  // Returns how many kernel folders it added.
  int Keep(const std::filesystem::path& private_cache);

  // Removes the least recently opened entries until the store holds at
  // most `max_bytes`.
  void Trim(uintmax_t max_bytes = kMaxStoreBytes);

 private:
  std::filesystem::path root_, view_;
  std::filesystem::path entry_;  // under root_, of the file last opened
  std::filesystem::path seen_;   // what its sandbox reads: entry_, or its copy under view_
  int kept_since_trim_ = 0;
};

}  // namespace hone
