// The flags of the LLM search, shared by `hone optimize` and `hone bench
// --model`: the model and endpoint, the strategy, the budget, sampling and
// retries, prices and prompts; stored with a run (as JSON) so that
// `--resume` searches the same way; and what they set up (the provider and
// the prompt templates). The strategies' flags, their stored form and their
// checks come from the strategies' own declarations (search/strategy.h:
// StrategySpec); nothing here names one.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "llm/provider.h"
#include "search/optimizer.h"
#include "search/prompt.h"

namespace hone::cli {

struct SearchFlags {
  std::string model, base_url, prices, prompts_dir, reasoning_effort;
  std::string language;  // --language: what kernels are asked in; empty: the backend's own
  StrategyOptions strategy;
  Budget budget;
  int concurrency = 4, max_tokens = 8192, thinking_budget = 0, retries = 6;
  double temperature = 0.7, retry_base_delay = 1;
  double request_timeout = 600;  // seconds per HTTP attempt
};

// `what` names the budget's scope in the help ("the search", "each task").
void AddSearchFlags(CLI::App* app, SearchFlags& f, const std::string& what);
nlohmann::json SearchFlagsToJson(const SearchFlags& f);  // paths made absolute
void SearchFlagsFromJson(const nlohmann::json& j, SearchFlags& f);
// Status::Invalid naming the flag: a number that is NaN, infinite or
// negative where it must not be (cli/number_flags.h), among others.
Status ValidateSearchFlags(const SearchFlags& f);

// What a search needs from the flags. Errors name the flag or the file; the
// request timeout and retry delay are capped at a week.
struct SearchSetup {
  std::unique_ptr<Provider> provider;
  std::unique_ptr<PromptBuilder> prompts;
  std::string model;  // "provider:model"
};
Result<SearchSetup> MakeSearchSetup(const SearchFlags& f);
// The options of one search; the caller adds the evaluation, store and run.
OptimizeOptions SearchOptions(const SearchFlags& f);

}  // namespace hone::cli
