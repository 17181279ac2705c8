// What every subcommand that evaluates needs: the backends this hone knows,
// the one a command runs on opened (its builder, measured machine and
// sandbox program), and the cache, set up once per invocation.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "lang/builtin.h"
#include "run/evaluator.h"
#include "task/suite.h"

namespace hone::cli {

// Exit codes (docs/CLI.md).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // hone itself could not work (environment)
constexpr int kExitUsage = 2;    // bad usage or a malformed task

struct Output {
  bool json = false;
  bool quiet = false;
  bool terminal = false;  // stderr is a terminal: show progress
  std::string log_file;   // --log: progress and results appended here
};

struct EvalContext {
  std::unique_ptr<OracleService> oracle;  // started by LoadTask for a PyTorch task
  // env.backends: BuiltInBackends(), opened; env.languages: BuiltInLanguages().
  EvaluatorEnv env;
  // A backend MakeEvalContext opened.
  const Backend& backend(const std::string& name) const { return *env.backends.Find(name); }
};

// The backends this hone was built with, none opened: the CPU's, and the
// CUDA one's when the build has it (else a kind saying it is missing). The
// one place backends are registered (run/backend_registry.h).
BackendRegistry BuiltInBackends();

// The host (CPU) backend always, and `backend` on device `device`.
// A backend that could not start (`st`), said of the candidate that needs it,
// with what would run here instead: a .cu on a machine without a GPU names
// the file and the languages the host backend runs (.cpp). Other failures
// are returned as they are.
Status BackendFailureFor(const std::string& candidate, const std::string& backend,
                         const Status& st);

Result<std::unique_ptr<EvalContext>> MakeEvalContext(const std::string& backend = kHostBackend,
                                                     int device = 0);

// Starts the oracle LoadTask would start for `backend` (a PyTorch task)
// without waiting for it (OracleService::Launch), so that work can begin
// beside its start and the task's loading (a warm sandbox). The context
// keeps it (ctx.oracle); hand it to the Evaluator. A failed start is the
// Status of the first call that needs the oracle (LoadTask).
Status StartOracle(EvalContext& ctx, const std::string& backend);

// A native task folder, or a PyTorch problem file (.py) loaded by an oracle on
// the backend's device, which the context keeps (ctx.oracle: the Evaluator of
// that task needs it). A problem that cannot run here is
// Status::Unavailable "skipped: ...".
Result<Task> LoadTask(EvalContext& ctx, const std::string& path, const std::string& backend,
                      const SizePolicy& sizes);

// The same without an evaluation context (`hone task show`): `oracle` is
// started, or restarted on another device, when a .py task needs it.
Result<Task> LoadTaskWith(std::unique_ptr<OracleService>& oracle, const std::string& path,
                          const std::string& device, const SizePolicy& sizes);

// Status::Invalid naming the candidate when it is not a source file hone
// evaluates: not there, a directory, or a file no language takes.
Status CheckCandidateFile(const std::string& candidate);

// The backend a candidate runs on: ResolveBackend over BuiltInBackends()
// for its language (BuiltInLanguages()).
Result<std::string> CandidateBackend(const std::string& candidate, const std::string& requested);

// Which files of a suite are solutions for `backend`: those of a language
// that runs on its device (SuiteLayout::is_solution).
std::function<bool(const std::filesystem::path&)> SolutionsFor(const std::string& backend);

// An -o FILE the command may write: empty (none), or a file in a folder
// that exists. hone creates no folders outside its own (run folders, the
// cache), so a mistyped path is refused before any work (exit 2).
Status CheckOutputFile(const std::string& output);

// Prints "hone: message" on stderr and maps the status to an exit code;
// after JsonErrors(true) (the command line has --json) it also prints
// {"error": message, "exit_code": N} on stdout, so a script that reads
// stdout as JSON gets an object on failure as on success. Main's thread.
int ReportError(const Status& st);
void JsonErrors(bool on);
// The JSON object ReportError prints: one line.
std::string JsonErrorObject(const std::string& message, int exit_code);

// A one-line progress indicator on stderr (a terminal only, not with
// --quiet or --json), erased when done; with --log every line shown and
// every Note also goes to the log file, timestamped. A log that cannot be
// opened is said once on stderr and then ignored.
//
// Where stderr is not a terminal (a CI log, a pipe), a line shown for
// kSlowStageSeconds or more is printed once as a line of its own, with its
// time so far, and again every kSlowStageRepeatSeconds while it lasts: a
// long build or load is never silent. A ticker thread of its own does
// that; the methods are called from one thread. $HONE_PROGRESS_AFTER (whole
// seconds) replaces kSlowStageSeconds.
inline constexpr int kSlowStageSeconds = 5;
inline constexpr int kSlowStageRepeatSeconds = 30;
class Progress {
 public:
  explicit Progress(const Output& out);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void Show(const std::string& line);
  // A line worth keeping (a result, a warning): to the log only.
  void Note(const std::string& line);
  // A line worth keeping that a person should see as it happens (an
  // attempt's outcome, a retry, a failure): on stderr whether or not it is
  // a terminal (not with --quiet or --json), and to the log.
  void Line(const std::string& line);
  void Clear();

 private:
  void Log(const std::string& line);
  void Tick();
  bool enabled_;
  bool lines_;
  bool shown_ = false;
  std::FILE* log_ = nullptr;
  std::string last_logged_;
  // The slow-stage ticker (not a terminal only).
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::string current_;  // the line shown now; empty after Clear
  std::chrono::steady_clock::time_point since_, said_at_;
  bool said_ = false;
  int slow_seconds_ = kSlowStageSeconds;
  std::thread ticker_;
};

}  // namespace hone::cli
