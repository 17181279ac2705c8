// How `hone worker` evaluates one job: the same path as `hone eval` (an
// evaluation context, the task loaded from the problem, one Evaluator),
// with the job's config applied to the worker's evaluation flags.
//
// Ownership: owns the evaluation context (builders, oracle) and the
// Evaluator; borrows the ServedRun, when given, to record each verdict.
// Thread-compatible: one evaluation at a time, as a worker makes them.
// Failure: anything that is not a verdict on the candidate (a config the
// worker cannot honour, a GPU job on a CPU worker, a problem that does not
// load, an evaluator Status) is a Status; the worker reports it as an
// infra_error result.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "format/task_format.h"
#include "lang/language.h"
#include "run/evaluator.h"
#include "serve/served_run.h"
#include "serve/worker.h"
#include "session/eval_context.h"

namespace hone {

struct WorkerEvalSetup {
  std::string backend = kHostBackend;  // the worker's: cpu, or a GPU's on its --device
  EvalOptions options;                 // from the evaluation flags
  SizePolicy sizes;
  ServedRun* record = nullptr;  // --store: where verdicts are recorded
  // The task formats a job's problem is read in: the entry point's registry
  // (BuiltInFormats(), or a test's), borrowed. Required. The languages are
  // the context's (EvalContext::env.languages).
  const FormatRegistry* formats = nullptr;
};

// What a job evaluates: the problem file of its part (a FlashInfer-Trace
// workload, a robust-kbench configuration: config.part, needed when there
// are several), and the candidate file, a kSolutionKind solution turned
// into the file hone runs (with the lint rules its format allows and the
// job's kind and code as that file's). A job's problem in no other format
// is itself. Status::Invalid naming config.part or candidate.kind.
struct JobPart {
  std::filesystem::path problem;
  std::string label;  // the part's, "" for a problem of one
  std::filesystem::path candidate;
  std::set<std::string> allow;
  EvalJob job;  // the job, its candidate as evaluated
};
Result<JobPart> PartForJob(const EvalJob& job, const JobFiles& files, const FormatRegistry& formats,
                           const LanguageRegistry& languages);

// The backend of `backends` a job runs on: config.backend, else the
// worker's, else the first registered backend of the first device its
// language runs on (a cpp candidate on cpu, a cuda or Triton one on cuda).
// A backend runs a language when its tasks_as is one of the language's
// devices. Status::Unavailable for a backend that is neither the worker's
// nor the host's (a CUDA job on a CPU worker); Status::Invalid for a
// contradiction or a backend `backends` does not know.
Result<std::string> JobBackend(const EvalJob& job, const std::string& worker_backend,
                               const LanguageRegistry& languages, const BackendRegistry& backends);
// The job's kernel language: candidate.kind, and for a ModelNew file what
// its text says (Triton or load_inline).
Result<const Language*> JobLanguage(const EvalJob& job, const LanguageRegistry& languages);

// The worker's options with the job's config applied: timeout_s (at most
// the worker's --timeout), allow (lint rules, comma-separated, added to the
// worker's), baselines (eager,compile / eager / none). Status::Invalid
// naming the key for a value the worker cannot honour (a rule no language of
// `languages` has).
Result<EvalOptions> ApplyJobConfig(const EvalOptions& base, const nlohmann::json& config,
                                   const LanguageRegistry& languages);

// config.seeds raises the task's seeds (never lowers them: the verification
// protocol's minimum stays); at most 16.
void ApplyJobSeeds(Task& task, const nlohmann::json& config);

class ContextJobEvaluator : public JobEvaluator {
 public:
  ContextJobEvaluator(std::unique_ptr<EvalContext> ctx, WorkerEvalSetup setup);
  ~ContextJobEvaluator() override;
  Result<Verdict> Evaluate(const EvalJob& job, const JobFiles& files) override;

 private:
  Result<Task> LoadFor(const EvalJob& job, const std::filesystem::path& problem,
                       const std::string& backend);
  Evaluator& EvaluatorForContext();

  std::unique_ptr<EvalContext> ctx_;
  WorkerEvalSetup setup_;
  std::unique_ptr<Evaluator> evaluator_;
  // Named problems loaded before, by path and backend (a PyTorch problem's
  // load runs the oracle); bounded.
  std::map<std::string, Task> tasks_;
};

}  // namespace hone
