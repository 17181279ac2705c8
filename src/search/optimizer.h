// The search loop: asks the strategy for proposals, sends them to the LLM
// concurrently (up to `llm_concurrency` calls in flight), extracts the code
// of each reply, warms the compile cache in a build pool and evaluates the
// candidates one at a time while further LLM calls run, feeds every result
// back to the strategy (a reply to a call that asked for no code, such as
// the tree strategy's call for ideas, is stored and handed back as it is),
// and stops on the budget, the target speedup, or
// when the strategy has nothing more to propose.
//
// Every attempt is recorded as it completes (search/run_record.h), and in
// the run store when there is one (search/run_journal.h), which is also
// what a resumed run replays. With OptimizeOptions::lessons, the first turn
// shows lessons recalled for similar tasks (search/lesson_recall.h) and a
// search that ran to its end distils its own (search/lesson_distil.h); a
// failure to distil is reported in the result, not as an error. Failures
// of one attempt (HTTP errors after retries, a reply without code, a
// truncated reply, a kernel that does not compile) are data; Run returns an
// error Status only when the environment breaks (the run folder cannot be
// written, the task's reference fails). One Run at a time per Optimizer.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "llm/provenance.h"
#include "llm/provider.h"
#include "run/evaluator.h"
#include "search/budget.h"
#include "search/strategy.h"
#include "store/store.h"
#include "tune/parts.h"

namespace hone {

struct OptimizeOptions {
  StrategyOptions strategy;
  Budget budget;
  ChatRequest sampling;  // temperature, max_tokens, reasoning; messages are the strategy's
  int llm_concurrency = 4;
  int build_threads = 0;  // 0: all cores
  // The kernel language candidates are asked in (lang/language.h, by name):
  // empty for the backend's native one (AskedLanguage).
  std::string language;
  EvalOptions eval;
  // A problem of several parts (a FlashInfer-Trace definition's workloads,
  // a robust-kbench task's configurations): every part, the task itself
  // first, and each reply is scored on all of them (tune/parts.h). Empty
  // for a problem of one part. Not owned.
  std::vector<TaskPart> parts;
  // compute-sanitizer on each new best CUDA candidate before it counts as
  // the best (Evaluator::SanitizeInto); memcheck errors fail it.
  bool sanitize_best = true;
  std::filesystem::path run_dir;
  // The run store (may be null): every attempt and evaluation is stored as
  // it happens under `run_id`, and a run that has stored attempts is
  // resumed (search/run_journal.h). `options_hash` names the evaluation
  // options in the store's work keys.
  Store* store = nullptr;
  int64_t run_id = 0;
  std::string options_hash;
  // Memory across tasks (needs `store`): the first turn shows lessons
  // recalled for similar tasks (search/lesson_recall.h; frozen in the run
  // folder, so a resumed run asks the same), and a search that ran to its
  // end distils its own (search/lesson_distil.h).
  bool lessons = false;
  // Set (by a signal handler, say) to stop: nothing new is asked, calls in
  // flight are cancelled, the evaluation under way finishes. Not owned.
  const std::atomic<bool>* interrupted = nullptr;
};

struct OptimizeResult {
  Spend spend;
  std::string stop_reason;
  int llm_failures = 0;         // calls that failed after every retry
  std::string last_llm_error;   // the last of those failures' reasons
  int cancelled = 0;            // calls cancelled when the search stopped (not counted as asked)
  bool interrupted = false;     // OptimizeOptions::interrupted stopped it
  int extraction_failures = 0;  // replies with no usable code
  int planning_calls = 0;       // calls that asked for no code (Proposal::wants_code false)
  int evaluated = 0, passed = 0;
  std::map<std::string, int> verdicts;  // status name -> count
  int best_id = -1;                     // -1: nothing passed
  std::string best_code;
  std::optional<Verdict> best_verdict;
  std::filesystem::path best_candidate;
  std::string sandbox_missing;  // protections not in force (from the first verdict that says)
  LlmProvenance provenance;     // the model, sampling settings and prompts asked
  int replayed = 0;             // resumed: stored replies used instead of new LLM calls
  int stored_verdicts = 0;      // resumed: stored verdicts used instead of new evaluations
  std::vector<int64_t> lessons_shown;  // ids of the lessons the first turn showed
  int lessons_added = 0;               // lessons distilled from this run
  std::string lessons_error;  // why distilling failed (the search's result stands); "" when not
  nlohmann::json strategy_summary;  // SearchStrategy::Summary(); null when it had none
};

struct OptimizeEvent {  // for live progress
  const Spend& spend;
  int evaluated, passed, in_flight;
  std::string stage;                   // what just happened
  const std::string& sandbox_missing;  // OptimizeResult::sandbox_missing so far
  // A line to keep, printed as it happens: an attempt's outcome, an LLM
  // call's failure. Empty for plain progress.
  std::string notice;
};
using OptimizeProgress = std::function<void(const OptimizeEvent&)>;

class Optimizer {
 public:
  // Candidates run on `backend` (one of the evaluator's), written in
  // OptimizeOptions::language: its builder warms the compile cache for the
  // evaluator, the language and the machine go into the prompts. Not owned;
  // they outlive the optimizer.
  Optimizer(const Task& task, const Backend& backend, Provider& provider,
            const PromptBuilder& prompts, Evaluator& evaluator, OptimizeOptions options);
  Result<OptimizeResult> Run(const OptimizeProgress& progress = {});

 private:
  const Task& task_;
  const Backend& backend_;
  Provider& provider_;
  const PromptBuilder& prompts_;
  Evaluator& evaluator_;
  OptimizeOptions options_;
};

// The language `name` (OptimizeOptions::language) for `task` on `backend`:
// empty is the backend's native language (C++ on the CPU, CUDA C++ on
// CUDA); a ModelNew language needs a PyTorch task. Status::Invalid naming
// the mismatch.
Result<const Language*> AskedLanguage(const LanguageRegistry& languages, const std::string& name,
                                      const Task& task, const Backend& backend);

// The result as JSON (summary.json and `hone optimize --json`).
std::string OptimizeResultJson(const OptimizeResult& r, const std::string& model,
                               const std::string& task, const std::string& strategy);

}  // namespace hone
