// What one evaluation is asked to do (EvalOptions) and what it may use
// (EvaluatorEnv): the contract between the commands that ask for
// evaluations and the pipeline that runs them (run/evaluator.h), apart so
// that the pipeline's pieces read their options without the evaluator.
// Plain values; thread-compatible.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "lang/builtin.h"
#include "lang/language.h"
#include "measure/timer.h"
#include "run/backend_registry.h"

namespace hone {

class PyTorchPath;
struct PyTorchPathParts;

enum class FlushMode { kLlc, kLines, kNone };
std::string FlushModeName(FlushMode m);
std::optional<FlushMode> ParseFlushMode(const std::string& s);

struct EvalOptions {
  bool time = true;
  TimingPolicy timing;
  FlushMode flush = FlushMode::kLlc;
  int input_sets = 3;  // inputs rotated through during timing
  // Processes a PyTorch task's candidate and baselines are each timed in
  // when their calls take under short_call_seconds (pytorch/timing_processes.h);
  // 1: one each.
  int short_call_processes = 4;
  double short_call_seconds = 20e-6;
  std::chrono::milliseconds max_call_timeout{10000};
  std::chrono::milliseconds min_call_timeout{2000};
  double call_timeout_factor = 50;  // times the reference's duration, within the bounds
  std::chrono::milliseconds start_timeout{10000};
  std::chrono::milliseconds total_timeout{std::chrono::minutes(10)};  // the whole evaluation
  size_t memory_limit_bytes = 0;                                      // 0: DefaultMemoryLimit()
  // The most memory the evaluation's plan may take (run/memory_plan.h), as if
  // the device had only this much free; 0: what is free. It bounds the plan,
  // not the allocators of the processes.
  int64_t memory_cap_bytes = 0;
  int threads = 0;    // 0: all cores
  uint64_t seed = 0;  // offsets every generated input
  bool seccomp = true, landlock = true, netns = true;
  bool profile = false;  // SandboxConfig::profile
  // Static lint before the build (verify/lint.h). `lint_allow` names rules
  // the task or the user allows (e.g. "library" where calling cuBLAS is the
  // point); the task's own [lint] allow list is added to it.
  bool lint = true;
  std::set<std::string> lint_allow;
  // The backend's name, opened in EvaluatorEnv::backends; empty:
  // ResolveBackend decides from the candidate's language (a ModelNew
  // file's from the devices present).
  std::string backend;
  // PyTorch tasks: which baselines to time when the cache has none. The
  // torch.compile baseline compiles the model first (seconds to minutes).
  bool eager_baseline = true;
  bool compile_baseline = true;
  // Whether the user chose the baselines (--baselines, a job's config):
  // otherwise a task that times its reference only (Task::eager_baseline_only)
  // gets no torch.compile baseline.
  bool baselines_chosen = false;
  // A PyTorch task's baselines not yet cached, timed while a ModelNew
  // candidate's extensions compile (Evaluator::Evaluate) rather than after
  // its verdict: a problem's first evaluation then waits for the longer of
  // the two, not both. kAuto: on a backend whose timed calls are held (their
  // time the device's, which a compile on the host leaves alone).
  enum class BaselinesDuringBuild { kAuto, kAlways, kNever };
  BaselinesDuringBuild baselines_during_build = BaselinesDuringBuild::kAuto;
  // That early evaluation of the task's own Model (not a verdict anyone
  // reads): it stops once the baselines are known to be cached, skips
  // verification (the Model is the reference), and caches
  // no baseline whose calls were not held (host-bound: its time is the
  // host's, which the compile beside it slows); the candidate's evaluation
  // then times that one after its own timing, as without it.
  bool baselines_only = false;
  // compute-sanitizer (memcheck, racecheck, initcheck) on the smallest case
  // after verification, before timing (tools/sanitize.h). memcheck errors fail
  // the verdict; the others are reported.
  bool sanitize = false;
  // Profiler counters of a passing candidate on its timed case, after
  // timing, with the judge's diagnosis (run/profile_stage.h).
  bool metrics = false;
  // An evaluation whose verdict is busy (a shared GPU left a timing check
  // undecided: measure/device_sharing.h) is made again this many times,
  // after `busy_pause` and twice that, before busy is its verdict.
  int busy_retries = 2;
  std::chrono::milliseconds busy_pause{2000};
};

struct EvaluatorEnv {
  // The backends candidates may run on, those opened (run/backend_registry.h);
  // each evaluation asks it for its own by name.
  BackendRegistry backends;
  // The languages candidates may be written in (lang/language.h): the
  // registry the process's entry point passed down (BuiltInLanguages(), or a
  // test's with languages of its own); each evaluation takes its
  // candidate's from the file. Empty until set.
  LanguageRegistry languages;
  // Opens the PyTorch path of an evaluation whose task's reference the
  // oracle runs (run/reference_source.h: PyTorchPath), which lives above
  // the pipeline: the process's entry point passes it down as it does the
  // registries (OpenPyTorchStages, pytorch/pytorch_stages.h). An Evaluator
  // needs it (a HONE_CHECK in its constructor).
  Result<std::unique_ptr<PyTorchPath>> (*open_pytorch_path)(const PyTorchPathParts&) = nullptr;
  std::filesystem::path scratch_root;
};

using ProgressFn = std::function<void(const std::string& stage)>;

// The default memory for a candidate's own allocations: an eighth of RAM, at
// most 2 GiB. Inputs, outputs and hone's flush buffer come on top.
size_t DefaultMemoryLimit();

// "eager,compile", "eager" or "none" into `o` (baselines_chosen set); `where`
// names the flag or field in the message of Status::Invalid for anything else
// (--baselines, a served job's config.baselines).
Status ApplyBaselines(const std::string& baselines, const std::string& where, EvalOptions& o);
// The lint rules named (--allow, a served job's config.allow), or
// Status::Invalid naming one no language of `languages` has.
Result<std::set<std::string>> ParseAllowedRules(const std::vector<std::string>& names,
                                                const LanguageRegistry& languages);

// What names an evaluation's settings in the store's work keys, so that a
// resumed run or bench re-uses a stored verdict only when it was measured
// the same way: everything in `o` that changes a verdict and the sizes the
// problems ran at, on `backend`; not where it ran (the device) or how it was
// shown. 32 hex digits.
std::string EvalIdentity(const std::string& backend, const EvalOptions& o,
                         const std::string& sizes);

}  // namespace hone
