#include "cli/search_flags.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>

#include "cli/number_flags.h"
#include "core/fs.h"
#include "core/paths.h"
#include "lang/builtin.h"

namespace hone::cli {

using json = nlohmann::json;

namespace {

// --strategy, then every strategy's parameters as their strategies declare
// them (search/strategy.h: StrategySpec), writing into `o.params`.
void AddStrategyFlags(CLI::App* sub, StrategyOptions& o) {
  sub->add_option("--strategy", o.name, OneOf(StrategyNames()))->capture_default_str();
  for (const StrategySpec* spec : Strategies()) {
    for (const StrategyParam& p : spec->params) {
      const std::string help = spec->name + ": " + p.help;
      ParamValue& value = o.params.Mutable(p.key);
      if (auto* n = std::get_if<int>(&value)) {
        sub->add_option(p.flag, *n, help)->capture_default_str();
      } else {
        sub->add_option(p.flag, std::get<std::vector<std::string>>(value),
                        help + ", comma-separated")
            ->delimiter(',')
            ->capture_default_str();
      }
    }
  }
}

}  // namespace

void AddSearchFlags(CLI::App* sub, SearchFlags& f, const std::string& what) {
  sub->add_option("--model", f.model,
                  "provider:model, e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, "
                  "vllm:Qwen/Qwen3-32B");
  sub->add_option("--base-url", f.base_url, "The endpoint's base URL (overrides the provider's)");
  sub->add_option("--language", f.language,
                  "The kernel language to ask for: cpp, cuda, triton or load_inline (a ModelNew "
                  "file, PyTorch tasks only); default: the backend's own (cpp, cuda)");
  AddStrategyFlags(sub, f.strategy);
  sub->add_option("--budget-candidates", f.budget.max_candidates,
                  "Most LLM calls of " + what + " (0: no limit)");
  sub->add_option("--budget-tokens", f.budget.max_tokens,
                  "Most tokens of " + what + ", input and output (0: no limit)");
  sub->add_option("--budget-dollars", f.budget.max_dollars,
                  "Most US dollars for " + what + " (0: no limit)");
  sub->add_option("--budget-seconds", f.budget.max_seconds,
                  "Most wall time of " + what + " (0: no limit)");
  sub->add_option("--target-speedup", f.budget.target_speedup,
                  "Stop " + what + " once a passed kernel is this much faster than the baseline");
  sub->add_option("--concurrency", f.concurrency, "LLM calls in flight at once")
      ->capture_default_str();
  sub->add_option("--temperature", f.temperature,
                  "Sampling temperature (negative: the endpoint's default)")
      ->capture_default_str();
  sub->add_option("--max-tokens", f.max_tokens, "Most output tokens per reply")
      ->capture_default_str();
  sub->add_option("--reasoning-effort", f.reasoning_effort,
                  "low, medium or high (OpenAI-style APIs)");
  sub->add_option("--thinking-budget", f.thinking_budget,
                  "Anthropic extended-thinking tokens (0: off)");
  sub->add_option("--retries", f.retries,
                  "Attempts per LLM call (429, 5xx, timeouts, dropped connections)")
      ->capture_default_str();
  sub->add_option("--request-timeout", f.request_timeout,
                  "Seconds one HTTP attempt may take before it is abandoned (and retried)")
      ->capture_default_str();
  sub->add_option("--retry-base-delay", f.retry_base_delay,
                  "First retry delay in seconds, doubled per retry (Retry-After wins)")
      ->capture_default_str();
  sub->add_option("--prices", f.prices, "TOML price table (US dollars per million tokens)");
  sub->add_option("--prompts", f.prompts_dir,
                  "Prompt template folder (default: the checkout's prompts/)");
}

json SearchFlagsToJson(const SearchFlags& f) {
  const Budget& b = f.budget;
  json j = {{"model", f.model},
            {"base_url", f.base_url},
            {"strategy", StrategyOptionsToJson(f.strategy)},
            {"budget",
             {{"candidates", b.max_candidates},
              {"tokens", b.max_tokens},
              {"dollars", b.max_dollars},
              {"seconds", b.max_seconds},
              {"target_speedup", b.target_speedup}}},
            {"concurrency", f.concurrency},
            {"max_tokens", f.max_tokens},
            {"thinking_budget", f.thinking_budget},
            {"retries", f.retries},
            {"temperature", f.temperature},
            {"retry_base_delay", f.retry_base_delay},
            {"request_timeout", f.request_timeout},
            {"reasoning_effort", f.reasoning_effort},
            {"prices", AbsolutePath(f.prices)},
            {"prompts_dir", AbsolutePath(f.prompts_dir)}};
  // Only when given: a run resumed from before --language keeps its identity.
  if (!f.language.empty()) j["language"] = f.language;
  return j;
}

void SearchFlagsFromJson(const json& c, SearchFlags& f) {
  f.model = c.value("model", "");
  f.language = c.value("language", "");
  f.base_url = c.value("base_url", "");
  StrategyOptionsFromJson(c.value("strategy", json::object()), f.strategy);
  auto b = c.value("budget", json::object());
  f.budget.max_candidates = b.value("candidates", 0);
  f.budget.max_tokens = b.value("tokens", int64_t{0});
  f.budget.max_dollars = b.value("dollars", 0.0);
  f.budget.max_seconds = b.value("seconds", 0.0);
  f.budget.target_speedup = b.value("target_speedup", 0.0);
  f.concurrency = c.value("concurrency", f.concurrency);
  f.max_tokens = c.value("max_tokens", f.max_tokens);
  f.thinking_budget = c.value("thinking_budget", f.thinking_budget);
  f.retries = c.value("retries", f.retries);
  f.temperature = c.value("temperature", f.temperature);
  f.retry_base_delay = c.value("retry_base_delay", f.retry_base_delay);
  f.request_timeout = c.value("request_timeout", f.request_timeout);
  f.reasoning_effort = c.value("reasoning_effort", "");
  f.prices = c.value("prices", "");
  f.prompts_dir = c.value("prompts_dir", "");
}

Status ValidateSearchFlags(const SearchFlags& f) {
  if (!f.language.empty())
    if (auto l = BuiltInLanguages().Get(f.language); !l.ok())
      return l.status().With("--language: ");
  if (!f.model.empty()) {
    if (auto model = ParseModelSpec(f.model, f.base_url); !model.ok())
      return model.status().With("--model: ");
  }
  if (f.concurrency < 1) return Status::Invalid("--concurrency: must be at least 1");
  if (f.max_tokens < 1) return Status::Invalid("--max-tokens: must be positive");
  if (f.retries < 1) return Status::Invalid("--retries: must be at least 1");
  HONE_RETURN_IF_ERROR(CheckedSeconds("--retry-base-delay", f.retry_base_delay, true).status());
  HONE_RETURN_IF_ERROR(CheckedSeconds("--request-timeout", f.request_timeout, false).status());
  HONE_RETURN_IF_ERROR(CheckFiniteNumber("--temperature", f.temperature, /*negative_ok=*/true));
  if (f.thinking_budget < 0) return Status::Invalid("--thinking-budget: must not be negative");
  static const char* const kEfforts[] = {"", "minimal", "low", "medium", "high"};
  if (std::find(std::begin(kEfforts), std::end(kEfforts), f.reasoning_effort) == std::end(kEfforts))
    return Status::Invalid("--reasoning-effort: expected minimal, low, medium or high, got '" +
                           f.reasoning_effort + "'");
  HONE_RETURN_IF_ERROR(ValidateStrategyOptions(f.strategy));
  const Budget& b = f.budget;
  if (b.max_candidates < 0) return Status::Invalid("--budget-candidates: must not be negative");
  if (b.max_tokens < 0) return Status::Invalid("--budget-tokens: must not be negative");
  HONE_RETURN_IF_ERROR(CheckFiniteNumber("--budget-dollars", b.max_dollars));
  HONE_RETURN_IF_ERROR(CheckFiniteNumber("--budget-seconds", b.max_seconds));
  HONE_RETURN_IF_ERROR(CheckFiniteNumber("--target-speedup", b.target_speedup));
  return Status::Ok();
}

Result<SearchSetup> MakeSearchSetup(const SearchFlags& f) {
  auto model = ParseModelSpec(f.model, f.base_url);
  if (!model.ok()) return model.status().With("--model: ");
  // Checked before a run is stored: without its key every call would fail.
  if (model->api_key_required) {
    const char* key = std::getenv(model->api_key_env.c_str());
    if (!key || !*key)
      return Status::Invalid("--model " + model->text() + ": $" + model->api_key_env +
                             " is not set: " + model->provider +
                             " needs an API key in that environment variable");
  }
  PriceTable prices = PriceTable::Defaults();
  if (!f.prices.empty()) {
    HONE_ASSIGN_OR_RETURN(PriceTable loaded, PriceTable::Load(f.prices));
    prices.Merge(loaded);
  }
  // Without a price every call costs $0 and the budget would never stop anything.
  if (f.budget.max_dollars > 0 && !prices.Has(*model))
    return Status::Invalid("--budget-dollars: hone has no price for " + model->text() +
                           ", so it cannot count dollars; give its price with --prices FILE "
                           "([prices.\"" +
                           model->text() +
                           "\"] input = ... output = ..., US dollars per million "
                           "tokens), or budget with --budget-tokens");
  HONE_ASSIGN_OR_RETURN(std::filesystem::path include_dir, FindIncludeDir());
  std::filesystem::path prompts_dir = f.prompts_dir;
  if (prompts_dir.empty()) {
    HONE_ASSIGN_OR_RETURN(prompts_dir, FindPromptsDir());
  }
  HONE_ASSIGN_OR_RETURN(PromptBuilder prompts,
                        PromptBuilder::Load(prompts_dir, include_dir, BuiltInLanguages()));
  RetryPolicy retry;
  retry.max_attempts = f.retries;
  // Checked as ValidateSearchFlags does, and capped at a week (a request's
  // timeout is cast to milliseconds).
  HONE_ASSIGN_OR_RETURN(retry.base_delay_seconds,
                        CheckedSeconds("--retry-base-delay", f.retry_base_delay, true));
  HONE_ASSIGN_OR_RETURN(retry.timeout_seconds,
                        CheckedSeconds("--request-timeout", f.request_timeout, false));
  SearchSetup s;
  s.model = model->text();
  s.provider =
      std::make_unique<Provider>(*model, MakeCurlHttpClient(), retry, prices, f.concurrency);
  s.prompts = std::make_unique<PromptBuilder>(std::move(prompts));
  return s;
}

OptimizeOptions SearchOptions(const SearchFlags& f) {
  OptimizeOptions o;
  o.language = f.language;
  o.strategy = f.strategy;
  o.budget = f.budget;
  o.sampling.temperature = f.temperature;
  o.sampling.max_tokens = f.max_tokens;
  o.sampling.reasoning_effort = f.reasoning_effort;
  o.sampling.thinking_budget_tokens = f.thinking_budget;
  o.llm_concurrency = f.concurrency;
  return o;
}

}  // namespace hone::cli
