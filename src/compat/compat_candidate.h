// Compat candidates: a KernelBench `ModelNew` file (.py) evaluated as a hone
// candidate, so published generations can be re-scored under hone's
// verification and timing protocol.
//
// hone generates a small C++ "shim" per candidate that embeds the Python
// runner (python/hone_compat.py), the problem's and the candidate's sources
// and the oracle's settings (sizes, model seed), and builds it like any
// candidate. The sandbox loads the shim in compat mode: while it loads,
// before the system-call filter, the shim starts Python (libpython, found
// from the oracle's interpreter), imports torch, runs the candidate's module
// (its load_inline build included) and builds ModelNew under the model seed;
// every hone_forward call then runs ModelNew.forward on hone's buffers
// without copies and copies its results into hone's outputs.
//
// Pure functions and file writes; failures are Status values.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "lang/language.h"
#include "task/task.h"
#include "verify/verdict.h"

namespace hone {

// hone_forward's return value when the candidate's module failed to load
// (its extension did not build, ModelNew raised): a compile error.
inline constexpr int kCompatLoadFailed = 86;
// hone_forward's return value when ModelNew raised in a call or returned
// what hone cannot take (python/hone_compat.py's CALL_FAILED); a
// `call_failed` event in its output says which.
inline constexpr int kCompatCallFailed = 5;

// The interpreter the shim embeds (the oracle's, from its hello reply).
struct CompatRuntime {
  std::string libpython;  // the shared libpython to dlopen
  std::string home;       // PYTHONHOME: sys.base_prefix
  std::vector<std::string> sys_path;
  std::string torch_dir;
  std::string bin_dir;  // the interpreter's folder: a venv keeps ninja there
  // The oracle's bytecode folder (sys.pycache_prefix): the sandbox reads
  // torch's compiled modules there and writes none. Empty: none.
  std::string pycache_prefix;
  std::filesystem::path runner;  // hone_compat.py
};

// From the oracle's hello reply; Status::Unavailable when the interpreter has
// no shared libpython (compat candidates cannot run with it).
Result<CompatRuntime> CompatRuntimeFromHello(const nlohmann::json& hello,
                                             const std::filesystem::path& python_dir);

// What a shim runs: the candidate's ModelNew, or one of the task's
// baselines, its own Model eager or under torch.compile (timed by the same
// protocol as candidates, so a problem timed against itself gives 1.00).
enum class CompatMode { kCandidate, kEager, kCompile };
const char* CompatModeName(CompatMode m);  // "candidate", "eager", "compile"

struct CompatShimOptions {
  CompatMode mode = CompatMode::kCandidate;
  // Extensions hone built outside the sandbox: extension key -> library,
  // imported by the load_inline hook instead of building (python/hone_extbuild.py).
  std::map<std::string, std::filesystem::path> prebuilt;
  // Extensions hone saw fail to build: key -> the compiler's log; the hook
  // raises torch's error at once instead of building again in the sandbox.
  std::map<std::string, std::string> failed_builds;
  bool warm_up = true;  // the first call while the module loads (lazy builds, torch.compile)
  // The candidate's language ("load_inline", "triton"; lang/language.h), and
  // what its loader adds: entries of the runner's config and folders its
  // sandbox may read (ModelNewLoader::Configure).
  std::string language;
  nlohmann::json runner_config = nlohmann::json::object();
  std::vector<std::string> read_dirs;
  // Where the sandbox finds the problem file (its __file__); empty: the
  // task's own file (compat/compat_sandbox.h AddProblemFolder).
  std::filesystem::path problem_path;
  // The path the candidate's module reports (its __file__, what Dynamo and
  // inspect open); empty: the candidate's own (AddCandidateFile).
  std::filesystem::path candidate_path;
};

// C++ source defining `static const unsigned char <name>[]` holding
// `bytes` and a terminating zero, whatever they are (a candidate's source
// may hold any byte).
std::string CByteArrayDefinition(const std::string& name, const std::string& bytes);

// Writes the shim for `candidate` on `task` (a PyTorch task) into dir and
// returns its path ("compat-<hash>.cpp"; the same inputs give the same file).
// For a baseline, `candidate` is the task's own file.
Result<std::filesystem::path> WriteCompatShim(const Task& task,
                                              const std::filesystem::path& candidate,
                                              const CompatRuntime& runtime,
                                              const std::filesystem::path& dir,
                                              const CompatShimOptions& options = {});

// What the compat runner reported while the module loaded and ran: the
// `hone-compat-event:` lines of its output (python/hone_compat.py). Untrusted
// words, read only to explain a verdict: they can turn a failure into
// another failure's words, never into a pass.
struct CompatEvents {
  // The verdict's notes: extensions built or loaded, Triton's compiled and
  // tuned kernels (verify/note_words.h words them).
  std::vector<Note> notes;
  // What failed on the way without stopping the load: an extension's build,
  // the first call (made while the module loaded), e.g. "building extension
  // 'relu_ext' failed: ...". A file that then launches nothing of its own
  // quotes these.
  std::vector<std::string> failures;
  // The module failed to load, or a call failed: the verdict it makes.
  struct Failure {
    VerdictStatus status = VerdictStatus::kRuntimeError;
    std::string reason;
  };
  std::optional<Failure> load_failed, call_failed;
  // The load as the runner timed it: in all, and its first call (JIT
  // compiles, autotuning, lazy builds); 0 when not reported.
  double load_seconds = 0, first_call_seconds = 0;
};
// `language`: the candidate's, whose compile_exceptions make a failed call a
// compile_error; null: none do.
CompatEvents ReadCompatEvents(const std::string& log, const Language* language = nullptr);

// Directories the sandbox must let a compat candidate read (Python, torch,
// compilers for load_inline, the oracle's bytecode) and the environment it
// needs.
std::vector<std::string> CompatReadDirs(const CompatRuntime& runtime);
std::vector<std::string> CompatEnvironment(const CompatRuntime& runtime);
// The runtime's bytecode folder when the sandbox's user can read it (as
// root the sandbox runs as 'nobody', who cannot pass through a private
// home), else "": the sandbox then compiles what it imports, as before.
std::string SandboxBytecodeDir(const CompatRuntime& runtime);

}  // namespace hone
