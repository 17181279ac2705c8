// What every entry point that evaluates sets up once per process: the
// backends this hone knows, the one it runs on opened (its builder, measured
// machine and sandbox program), the oracle a PyTorch problem needs, and the
// problem loaded. `hone eval`, `bench`, `optimize`, `prepare` and the
// service's workers all start here (cli/ parses flags into it; serve/ maps
// jobs onto it).
//
// Ownership: an EvalContext owns its oracle and its opened backends; an
// Evaluator made from it borrows both. One thread at a time. Failures are
// Status values naming what is missing (a backend that cannot start here, a
// problem that cannot load).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "lang/language.h"
#include "run/backend_registry.h"
#include "run/eval_options.h"
#include "task/oracle_service.h"
#include "task/task.h"

namespace hone {

struct EvalContext {
  std::unique_ptr<OracleService> oracle;  // started by LoadTask for a PyTorch task
  // env.backends: BuiltInBackends(), opened; env.languages: the registry
  // the entry point passed MakeEvalContext; env.open_pytorch_path: the
  // PyTorch path's stages (pytorch/pytorch_stages.h).
  EvaluatorEnv env;
  // A backend MakeEvalContext opened.
  const Backend& backend(const std::string& name) const { return *env.backends.Find(name); }
};

// The backends this hone was built with, none opened: the CPU's, and the
// CUDA one's (a kind saying it is missing when the build has no CUDA
// toolkit: src/cuda/ registers either). The one place backends are
// registered (run/backend_registry.h).
BackendRegistry BuiltInBackends();

// The host (CPU) backend always, and `backend` on device `device`.
// A backend that could not start (`st`), said of the candidate that needs it,
// with what would run here instead: a .cu on a machine without a GPU names
// the file and the languages the host backend runs (.cpp). Other failures
// are returned as they are.
Status BackendFailureFor(const std::string& candidate, const std::string& backend, const Status& st,
                         const LanguageRegistry& languages);

// `languages` is copied into env.languages: the registry every evaluation of
// the context reads its candidate's language from (the process's entry
// point passes BuiltInLanguages(), a test its own). `start_oracle`: the
// problem loads through the oracle, which is launched once the host's
// backend is open (its ceilings measured on a quiet machine, once) and
// before the candidate's (StartOracle's way, where the backend's kind knows
// its oracle device), so that it imports torch while the device's backend
// sets itself up.
Result<std::unique_ptr<EvalContext>> MakeEvalContext(const LanguageRegistry& languages,
                                                     const std::string& backend = kHostBackend,
                                                     int device = 0, bool start_oracle = false);

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
// A native task may name the devices of `backends` (TaskDevicesOf).
Result<Task> LoadTaskWith(std::unique_ptr<OracleService>& oracle, const std::string& path,
                          const std::string& device, const SizePolicy& sizes,
                          const BackendRegistry& backends = BuiltInBackends());

// Status::Invalid "WHERE: expected cpu or cuda, got 'NAME'" unless `name` is
// a backend this hone knows (built with it or not).
Status CheckBackendName(const std::string& name, const std::string& where);

// Status::Invalid naming the candidate when it is not a source file hone
// evaluates: not there, a directory, or a file no language of `languages`
// takes.
Status CheckCandidateFile(const std::string& candidate, const LanguageRegistry& languages);

// The backend a candidate runs on: ResolveBackend over BuiltInBackends()
// for its language in `languages`.
Result<std::string> CandidateBackend(const std::string& candidate, const std::string& requested,
                                     const LanguageRegistry& languages);

// Which files of a suite are solutions for `backend` (a kind of
// `backends`): those of a language of `languages` (copied into the
// function) that runs on its device (SuiteLayout::is_solution).
std::function<bool(const std::filesystem::path&)> SolutionsFor(
    const std::string& backend, const LanguageRegistry& languages,
    const BackendRegistry& backends = BuiltInBackends());

}  // namespace hone
