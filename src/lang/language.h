// A kernel language: everything that sets apart the candidates written in it
// (C++, CUDA C++, a KernelBench ModelNew file building CUDA through
// load_inline, Triton), as one registered object the rest of hone asks
// instead of naming a language.
//
// A language is its names plus facets, one per concern: how its files are
// recognised (LanguageSource: extensions, and for a shared extension such as
// .py what the file's text must hold, which code fences of an LLM's reply
// hold it), how it runs (LanguageRun: a native library, or a ModelNew file
// through the compat shim, which devices, how its launched kernels are known
// to be its own, whether compute-sanitizer can look at it), its static rules
// and how severe each is (LanguageLint), what its prompts show
// (LanguagePrompt: the contract, the rules, a worked example), words its
// verdicts add (LanguageHints), and for a ModelNew language what loading its
// files adds (ModelNewLoading).
//
// Adding a language is adding a folder's worth of files that build one
// Language and register it (lang/builtin.h registers hone's own; tests
// register theirs); no stage, command or report names a language.
//
// A Language is a value fixed at registration; a registry is filled once,
// then read from any thread. Unknown names and unrecognised files are
// Status values naming what is known.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "verify/lint.h"

namespace hone {

// How the sandbox runs a candidate of the language.
enum class Runner {
  // Built by the backend's builder into a library exporting hone_forward
  // (include/hone/kernel.h).
  kNative,
  // A KernelBench ModelNew file (.py) run by the compat shim's embedded
  // Python (compat/compat_candidate.h); it needs a PyTorch task.
  kModelNew,
};

// How hone knows which kernels launched at run time are the candidate's own.
enum class KernelNames {
  kNone,    // nothing to attribute (host code)
  kBuild,   // the build's report: the kernels its library defines (ptxas)
  kSource,  // the static scan of the file: __global__ names, @triton.jit functions
};

// A rule of the language's static checks and what a finding of it does.
struct LanguageRule {
  std::string name;
  std::string explanation;
  // A finding rejects the candidate, or is only a warning in its verdict;
  // --allow RULE silences either.
  enum class Severity { kReject, kWarn } severity = Severity::kReject;
  // Another rule's name that also allows this one ("library" allows
  // "torch-compute"); empty: none.
  std::string allowed_by{};
};

// What the prompts of `hone optimize` show for the language (prompts/).
struct LanguagePrompt {
  // The contract the candidate is written to: "kernel.h" (hone_forward,
  // include/hone/kernel.h) or "modelnew" (a KernelBench ModelNew module).
  std::string contract = "kernel.h";
  std::string rules;    // the template of its rules, e.g. "backend_cuda" (prompts/<rules>.txt)
  std::string example;  // its worked example, e.g. "example_cuda.cu" (read verbatim)
  // What limits a fast kernel in it, for the feedback on a passing one.
  std::string limits;
  // What to check when a candidate failed at run time.
  std::string runtime_advice;
};

// Where a ModelNew language's loader keeps what it shares across
// evaluations, and the Python it may run as a trusted helper.
struct LoaderEnv {
  std::filesystem::path cache;  // $HONE_CACHE
  // A folder sandboxes can read, for copies of what they need from the
  // cache when they cannot read the cache itself (as root they run as
  // 'nobody', who cannot pass through root's home); empty: they can.
  std::filesystem::path readable;
  std::string python;                // the interpreter the compat runner embeds
  std::filesystem::path python_dir;  // hone's Python files
};

// What a ModelNew language adds to the compat runner (python/hone_compat.py)
// in one process: entries of the runner's config and folders its sandbox
// may read, given before each candidate's shim is written (with the
// candidate file's text), and what it does with what the candidate's
// sandbox left in its scratch folder once loaded (Triton: the launchers it
// compiled, for hone's trusted builder, and its kernels, for the same
// file's later evaluations). Loaded follows Configure once that candidate
// has loaded, and not at all when it did not. Made once
// per evaluator (ModelNewLoading::make_loader); one evaluating thread at a time.
// Failures only cost speed: they are not the candidate's.
class ModelNewLoader {
 public:
  virtual ~ModelNewLoader() = default;
  virtual void Configure(std::string_view candidate_source, nlohmann::json& runner_config,
                         std::vector<std::string>& read_dirs) = 0;
  virtual void Loaded(const std::filesystem::path& scratch) = 0;
};

// How a language's files and code are recognised: by a file's extension
// and text, by an LLM reply's code fences and the entry point a block
// defines (LanguageRegistry's lookups below, search/extract.h).
struct LanguageSource {
  // Its files' extensions; the first is the one hone writes (a saved
  // candidate). Several languages may share one (.py): `claims` decides.
  std::vector<std::string> extensions;
  // For a shared extension: whether a file's text is this language's.
  // Null: every file with one of its extensions is.
  std::function<bool(std::string_view source)> claims;
  // The code-fence tags of an LLM reply that hold its source; the first is
  // the one its prompts use.
  std::vector<std::string> fences;
  // Whether a block of code defines the entry point its contract asks for
  // (hone_forward with a body, class ModelNew): a reply's block that does is
  // preferred to the others (search/extract.h). Null: none is preferred.
  std::function<bool(std::string_view code)> defines_entry;

  // The extension hone gives a file of this language it writes (".cu").
  const std::string& extension() const { return extensions.front(); }
  const std::string& fence() const { return fences.front(); }
};

// How its candidates run: the sandbox's way of loading them, the devices
// they run on, how their kernels are known and whether compute-sanitizer
// can look at them (run/, tools/sanitize.h).
struct LanguageRun {
  Runner runner = Runner::kNative;
  // The devices it runs on, as backends name the tasks they run
  // (BackendTraits::tasks_as: "cpu", "cuda"), in order of preference.
  std::vector<std::string> devices;
  KernelNames kernel_names = KernelNames::kNone;
  // compute-sanitizer can run its candidates (tools/sanitize.h).
  bool sanitizer = false;

  bool modelnew() const { return runner == Runner::kModelNew; }
  bool RunsOn(std::string_view device) const;
};

// Its static rules and the check that finds them (verify/lint.h,
// run/lint_stage.h).
struct LanguageLint {
  // Its rules, in the order `hone lint --rules` lists them.
  std::vector<LanguageRule> rules;
  // The static check over a source's text, for a native language. Null for
  // a ModelNew language: its findings come from the scan of the file
  // (compat/compat_scan.h), which reads Python's own syntax tree.
  std::function<std::vector<LintFinding>(std::string_view source)> check;

  const LanguageRule* Rule(std::string_view name) const;
};

// Words a verdict adds about a candidate in the language.
struct LanguageHints {
  // For a candidate that broke a sandbox rule with system call `nr` after it
  // had loaded, about what in this language makes that call; "" when it
  // knows none. Null: none.
  std::function<std::string(int nr)> violation_hint;
  // Added to an `incorrect` verdict that failed the float64 precision check
  // (a Triton tl.dot computing in TF32); "" for none.
  std::string precision_hint;
};

// What a ModelNew language adds to loading and running its files through
// the compat shim (compat/, pytorch/compat_stages.h, `hone prepare`). Empty
// for a native language.
struct ModelNewLoading {
  // The decorators that mark its kernels in a file, as dotted paths through
  // the file's imports ("triton.jit"); the static scan finds the functions
  // they decorate (compat/compat_scan.h).
  std::vector<std::string> kernel_decorators;
  // The exceptions its compiler raises when a kernel does not compile, as
  // module prefixes ("triton.compiler.") or type names ("PTXASError"): a
  // call that raises one is a compile_error.
  std::vector<std::string> compile_exceptions;
  // Its additions to its runner; null: none.
  std::function<std::unique_ptr<ModelNewLoader>(const LoaderEnv&)> make_loader;
  // For `hone prepare`: ModelNew files for one device (a backend's tasks_as)
  // whose build fills what this machine's first candidate in the language
  // would otherwise wait for (load_inline: torch's precompiled extension
  // header, one per flag set that candidates commonly pass). Null or empty:
  // nothing to warm.
  std::function<std::vector<std::string>(std::string_view device)> warm_up;
};

// A language is its names and a few facets, each read by the part of hone
// that needs it.
struct Language {
  std::string name;   // "cpp", "cuda", "load_inline", "triton": options, verdicts, the store
  std::string label;  // "C++20", "CUDA C++", "Triton": messages and prompts
  // Other names a request may give it (serve's candidate.kind, KernelGYM's
  // backend): "cuda_inline", "modelnew", ...
  std::vector<std::string> aliases;

  LanguageSource source;
  LanguageRun run;
  LanguageLint lint;
  LanguagePrompt prompt;
  LanguageHints hints;
  ModelNewLoading loading;
};

class LanguageRegistry {
 public:
  // A language of the same name is replaced; aborts on one with no name,
  // extension or fence (a programmer error).
  void Register(Language language);
  const std::vector<Language>& all() const { return languages_; }

  // By name or alias, case-insensitively; null when unknown.
  const Language* Find(std::string_view name) const;
  // Find, or Status::Invalid naming the languages known.
  Result<const Language*> Get(std::string_view name) const;
  // The language of a candidate file: by its extension, and where several
  // languages share it by its text (read here). Status::Invalid naming the
  // file and the extensions known when none takes it.
  Result<const Language*> ForFile(const std::filesystem::path& file) const;
  // The same for text already read (`file` names it in messages).
  Result<const Language*> ForSource(const std::filesystem::path& file,
                                    std::string_view source) const;
  // Whether some language takes files with this extension (".cu").
  bool KnowsExtension(std::string_view extension) const;
  // Whether `file` is of a ModelNew language (false when no language takes it).
  bool IsModelNew(const std::filesystem::path& file) const;
  // The first native language that runs on `device` ("cpu" -> C++, "cuda" ->
  // CUDA C++): a backend's own; null when none does.
  const Language* NativeFor(std::string_view device) const;
  // The languages whose fences include `tag` (lower case), in order.
  std::vector<const Language*> ForFence(std::string_view tag) const;
  // "a .cpp, .cc or .cxx file (C++20), a .cu file (CUDA C++), ...": the
  // extensions known, for messages.
  std::string ExtensionsText() const;
  // Every language's kernel decorators, each once.
  std::vector<std::string> KernelDecorators() const;
  // Every rule of every language, each name once, in registration order
  // (`hone lint --rules`, --allow's check).
  std::vector<const LanguageRule*> AllRules() const;
  bool IsRule(std::string_view name) const;

 private:
  std::vector<Language> languages_;
};

// What a language's static rules decide about its findings: the first
// rejection (or none) and the warnings, given the rules allowed.
struct LintOutcome {
  std::optional<LintFinding> rejection;
  std::vector<LintFinding> warnings;
};
LintOutcome JudgeFindings(const Language& language, const std::vector<LintFinding>& findings,
                          const std::set<std::string>& allowed);

}  // namespace hone
