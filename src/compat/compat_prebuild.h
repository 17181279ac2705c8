// The torch extensions of a compat candidate (a KernelBench ModelNew file),
// built by hone outside the sandbox before the candidate runs.
//
// A ModelNew file builds its kernels with load_inline while it is imported
// (or lazily in forward): 40 to 80 s of compilers that would otherwise run
// serially inside the sandbox, with no cache. hone reads the calls from the
// file without running it (compat_scan.h), has the oracle write each call's
// sources and the commands this torch would run (OracleService::
// PrepareExtension), and runs them itself (build/torch_extension.h: parallel,
// a precompiled torch header, a content-hash cache). The sandboxed module's
// load_inline then imports the result (python/hone_extbuild.py's hook, given
// libraries() and failures() through CompatShimOptions). A call the scan
// could not resolve (arguments computed at run time) still builds inside the
// sandbox, while the module loads; notes say which and why.
//
// Results are remembered per file content for the life of the prebuilder,
// so `hone bench`'s prebuild of every candidate makes each evaluation's own
// call a lookup, and the builder's disk cache makes a later process's build
// a few file reads.
//
// Thread-compatible: one caller at a time (the oracle is single-threaded);
// builds run on the prebuilder's own threads, and Start leaves them running
// after it returns (the destructor waits for the builds under way). A compile error is a value
// (PrebuiltExtension::ok == false with its log); Status errors are for hone
// (no scanner, a dead oracle, an unwritable cache).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "build/torch_extension.h"
#include "compat/compat_scan.h"
#include "core/status.h"
#include "verify/note.h"

namespace hone {

class OracleService;

struct PrebuiltExtension {
  CompatExtension call;           // where the file makes the call, its key
  bool ok = false;                // the build succeeded
  std::filesystem::path library;  // ok: the built module (in the builder's cache)
  std::string log;                // !ok: what the compiler said, trimmed
  bool cached = false;            // found in the builder's cache
  double seconds = 0;             // this build's wall time
};

struct CompatPrebuild {
  CompatScan scan;
  std::vector<PrebuiltExtension> extensions;  // the resolved calls, in file order
  std::vector<Note> notes;                    // calls left to the sandbox
  double seconds = 0;  // scan, prepare and build (wall; in a batch, its longest build)
  bool all_cached() const;
  // For the shim's hook: extension key -> library, and key -> error log.
  std::map<std::string, std::filesystem::path> libraries() const;
  std::map<std::string, std::string> failures() const;
  // The first failed build not inside a try block: the module cannot load.
  const PrebuiltExtension* fatal_failure() const;
};

class CompatPrebuilder {
 public:
  // `oracle` and `builder` are not owned and outlive the prebuilder;
  // `work_dir` receives the prepared sources (one folder per call).
  // `decorators`: the kernel decorators of the languages known
  // (ModelNewLoading::kernel_decorators), for the scan.
  CompatPrebuilder(OracleService& oracle, TorchExtensionBuilder& builder,
                   std::filesystem::path work_dir, std::vector<std::string> decorators = {},
                   int threads = 0);
  // Waits for the builds that Start left under way (none is cut off: a
  // compiler's half-written output would be nobody's to clean).
  ~CompatPrebuilder();
  CompatPrebuilder(const CompatPrebuilder&) = delete;
  CompatPrebuilder& operator=(const CompatPrebuilder&) = delete;

  // Scans and prepares `candidate` (the oracle's calls, on the calling
  // thread) and returns with its builds under way on the prebuilder's
  // threads, so that they overlap the caller's own work (the oracle loading
  // the problem). The next Prebuild or PrebuildAll waits for them, and counts
  // them as its own (a ModelNew's baselines are timed meanwhile while they
  // still compile). A second Start first waits for the first.
  void Start(const std::filesystem::path& candidate);

  // Scans `candidate` and builds what it can (remembered per content).
  Result<CompatPrebuild> Prebuild(const std::filesystem::path& candidate);

  // Every candidate at once: scans and prepares one after another, then
  // builds all the calls on the prebuilder's threads. `progress(done, total)`
  // after each build, from those threads. A candidate that fails is
  // remembered as its Status.
  //
  // `meanwhile`, when some call is not in the builder's cache (a compile is
  // ahead, its own or Start's still under way), runs on the calling thread
  // while the builds go; the call returns once both are done. It may use the oracle (the builds do
  // not) and this prebuilder (a nested Prebuild of another file), not the builds' results.
  void PrebuildAll(const std::vector<std::filesystem::path>& candidates,
                   const std::function<void(int, int)>& progress = {},
                   const std::function<void()>& meanwhile = {});

 private:
  struct Pending {
    std::string file_key;
    size_t index;  // into the CompatPrebuild's extensions
    TorchExtensionPlan plan;
  };
  // Candidates prepared together and their builds, on threads of their own.
  struct Batch;
  // Scans and prepares; calls the oracle. Fills `pending` with what to build.
  Result<CompatPrebuild> Prepare(const std::filesystem::path& candidate,
                                 const std::string& file_key, std::vector<Pending>& pending);
  // A candidate and its FileKey, read once per call.
  using KeyedFile = std::pair<std::filesystem::path, std::string>;
  // The candidates whose content could be read, keyed.
  static std::vector<KeyedFile> Keyed(const std::vector<std::filesystem::path>& candidates);
  // PrebuildAll of candidates already keyed.
  void PrebuildKeyed(const std::vector<KeyedFile>& candidates,
                     const std::function<void(int, int)>& progress,
                     const std::function<void()>& meanwhile);
  // Prepares the candidates neither done nor under way (remembering a
  // failure as its Status) and starts their builds; null when none is left.
  std::unique_ptr<Batch> StartBatch(const std::vector<KeyedFile>& candidates,
                                    const std::function<void(int, int)>& progress);
  // Waits for its builds and remembers its files. `aside`: other work ran
  // while they built (each file's time is then its own longest build).
  void Finish(std::unique_ptr<Batch> batch, bool aside);
  // Whether any pending call would compile (is not in the builder's cache).
  bool AnyToCompile(const std::vector<Pending>& pending) const;
  static Result<std::string> FileKey(const std::filesystem::path& candidate);

  OracleService& oracle_;
  TorchExtensionBuilder& builder_;
  std::filesystem::path work_dir_;
  std::vector<std::string> decorators_;
  int threads_;
  std::map<std::string, Result<CompatPrebuild>> done_;  // by FileKey
  std::unique_ptr<Batch> started_;                      // by Start, not yet finished
};

}  // namespace hone
