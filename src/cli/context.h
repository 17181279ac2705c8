// What every subcommand that evaluates needs: the cache, the builder, the
// measured machine and the sandbox program, set up once per invocation.
#pragma once

#include <memory>
#include <string>

#include "build/compiler_builder.h"
#include "run/evaluator.h"

namespace hone::cli {

// Exit codes (docs/CLI.md).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // hone itself could not work (environment)
constexpr int kExitUsage = 2;    // bad usage or a malformed task

struct Output {
  bool json = false;
  bool quiet = false;
  bool terminal = false;  // stderr is a terminal: show progress
};

struct EvalContext {
  std::unique_ptr<CompilerBuilder> builder;
  std::unique_ptr<Builder> cuda_builder;
  std::unique_ptr<OracleService> oracle;  // started by LoadTask for a PyTorch task
  EvaluatorEnv env;
  int device = 0;
};

// The CPU backend always; the CUDA backend on GPU `device` when with_cuda.
Result<std::unique_ptr<EvalContext>> MakeEvalContext(bool with_cuda = false, int device = 0);

// A native task folder, or a PyTorch problem file (.py) loaded by an oracle on
// the backend's device, which the context keeps (env.oracle). A problem that
// cannot run here is Status::Unavailable "skipped: ...".
Result<Task> LoadTask(EvalContext& ctx, const std::string& path, const std::string& backend,
                      const SizePolicy& sizes);

// The same without an evaluation context (`hone task show`): `oracle` is
// started, or restarted on another device, when a .py task needs it.
Result<Task> LoadTaskWith(std::unique_ptr<OracleService>& oracle, const std::string& path,
                          const std::string& device, const SizePolicy& sizes);

// The backend a candidate runs on: from its extension, or for a compat (.py)
// candidate from `requested` ("cpu", "cuda"), else cuda when a GPU is present.
Result<std::string> CandidateBackend(const std::string& candidate, const std::string& requested);

// Prints "hone: message" and maps the status to an exit code.
int ReportError(const Status& st);

// A one-line progress indicator on stderr, erased when done.
class Progress {
 public:
  explicit Progress(const Output& out) : enabled_(out.terminal && !out.quiet && !out.json) {}
  ~Progress() { Clear(); }
  void Show(const std::string& line);
  void Clear();

 private:
  bool enabled_;
  bool shown_ = false;
};

}  // namespace hone::cli
