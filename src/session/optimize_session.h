// One `hone optimize` run's lifecycle, apart from its command line: the
// problem's parts loaded on the run's backend, the task recorded with the
// run (a resumed run refuses a task whose content changed), the search run
// with every attempt stored, and the run's final state in the store:
// "finished" with its summary, "failed" when every LLM call failed (the
// environment's fault, not the task's), or left "running" when interrupted,
// so that --resume continues it. The CLI (cli/cmd_optimize.cc) parses flags,
// opens or resumes the stored run and prints; a service or a notebook could
// drive the same session.
//
// Ownership: borrows the store, the provider and the prompts, which outlive
// the call; owns the evaluation context it makes. One thread calls Run;
// `on_event` is called from the search loop's and the LLM calls' threads,
// serialised by the caller's lock if it needs one. Failures that are not the
// search's outcome (a problem that does not load, a backend that cannot
// start, a store write) are Status values; the run is then marked "failed".
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "format/task_format.h"
#include "run/eval_options.h"
#include "search/optimizer.h"
#include "session/eval_context.h"
#include "store/store.h"
#include "task/oracle_service.h"

namespace hone {

struct OptimizeSession {
  // The problem's parts (tune/parts.h), the first one recorded with the run
  // and shown in the prompt; one part for a problem of one.
  std::vector<ProblemPart> problems;
  std::string backend;
  int device = 0;
  SizePolicy sizes;
  // The search's own options (strategy, budget, sampling, language), its
  // evaluation options and run folder; the session adds the store, the run,
  // the evaluation identity and the parts.
  OptimizeOptions options;
  Store* store = nullptr;
  int64_t run_id = 0;
  bool resumed = false;
  Provider* provider = nullptr;
  const PromptBuilder* prompts = nullptr;
  // The model's "provider:model" and the strategy's name, for the summary.
  std::string model, strategy;
  // The languages the run's evaluations read candidates in: the entry
  // point's registry (BuiltInLanguages(), or a test's), borrowed like the
  // prompts. Required.
  const LanguageRegistry* languages = nullptr;
};

struct OptimizeSessionEnd {
  OptimizeResult result;
  std::string summary;  // the run's summary JSON (search/optimizer.h's OptimizeResultJson)
  std::string task;     // the recorded task's name
  // Every LLM call failed, so nothing was searched: the run is "failed" and
  // the command should say so as an error.
  bool every_call_failed = false;
};

// Runs the session to its end and records the run's final state (above).
Result<OptimizeSessionEnd> RunOptimizeSession(
    OptimizeSession session, const std::function<void(const OptimizeEvent&)>& on_event);

// The parts' problems loaded on `backend`, the first one's description
// telling the model that its reply runs on every part.
Result<std::vector<Task>> LoadOptimizeParts(EvalContext& ctx, const std::vector<ProblemPart>& parts,
                                            const std::string& backend, const SizePolicy& sizes);

}  // namespace hone
