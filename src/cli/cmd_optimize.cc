// hone optimize TASK --model PROVIDER:MODEL: the LLM search for the fastest
// kernel that passes the verifier.
#include <fmt/format.h>

#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "core/fs.h"
#include "core/paths.h"
#include "search/optimizer.h"
#include "task/task_loader.h"

namespace hone::cli {
namespace {

struct OptimizeArgs {
  std::string task, model, base_url, backend = "cpu", output, run_dir, prices, prompts_dir;
  StrategyOptions strategy;
  Budget budget;
  int concurrency = 4, max_tokens = 8192, thinking_budget = 0, retries = 6;
  double temperature = 0.7, retry_base_delay = 1;
  std::string reasoning_effort;
  EvalFlags flags;
  Output out;
};

std::string DefaultRunDir(const std::string& task) {
  std::time_t t = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
  return "hone-runs/" + task + "-" + stamp;
}

Status Validate(const OptimizeArgs& a) {
  if (a.backend != "cpu" && a.backend != "cuda")
    return Status::Invalid("--backend: expected cpu or cuda, got '" + a.backend + "'");
  if (a.concurrency < 1) return Status::Invalid("--concurrency: must be at least 1");
  if (a.max_tokens < 1) return Status::Invalid("--max-tokens: must be positive");
  if (a.retries < 1) return Status::Invalid("--retries: must be at least 1");
  if (a.retry_base_delay < 0) return Status::Invalid("--retry-base-delay: must not be negative");
  if (a.budget.max_candidates < 0 || a.budget.max_tokens < 0 || a.budget.max_dollars < 0 ||
      a.budget.max_seconds < 0 || a.budget.target_speedup < 0)
    return Status::Invalid("--budget-*/--target-speedup: must not be negative");
  return Status::Ok();
}

std::string ProgressLine(const OptimizeEvent& e) {
  return fmt::format(
      "[{} asked, {} in flight, {} evaluated, {} passed, best {:.2f}x, {} tokens, ${:.4f}, {:.0f} "
      "s] {}",
      e.spend.candidates, e.in_flight, e.evaluated, e.passed, e.spend.best_speedup,
      e.spend.tokens(), e.spend.dollars, e.spend.seconds, e.stage);
}

void PrintSummary(const OptimizeResult& r, const std::filesystem::path& run_dir,
                  const std::string& output) {
  const Spend& s = r.spend;
  std::string verdicts;
  for (const auto& [name, n] : r.verdicts)
    verdicts += fmt::format("{}{} {}", verdicts.empty() ? "" : ", ", n, name);
  std::cout << fmt::format("stopped: {}\n", r.stop_reason);
  std::cout << fmt::format(
      "{} LLM calls ({} failed after retries, {} without usable code), {} evaluated: {}\n",
      s.candidates, r.llm_failures, r.extraction_failures, r.evaluated,
      verdicts.empty() ? "none" : verdicts);
  if (r.best_id >= 0)
    std::cout << fmt::format(
        "best: candidate {} at {:.2f}x{}{}\n", r.best_id, s.best_speedup,
        r.best_verdict && r.best_verdict->sol_percent > 0
            ? fmt::format(", {:.1f}% of speed of light", r.best_verdict->sol_percent)
            : "",
        output.empty() ? "" : ", written to " + output);
  else
    std::cout << "best: none passed\n";
  std::cout << fmt::format("spent: {} input + {} output tokens, ${:.4f}, {:.1f} s\n",
                           s.input_tokens, s.output_tokens, s.dollars, s.seconds);
  std::cout << "run record: " << run_dir.string() << "\n";
}

int RunOptimize(OptimizeArgs a) {
  if (Status st = Validate(a); !st.ok()) return ReportError(st);
  auto eval = ToEvalOptions(a.flags);
  if (!eval.ok()) return ReportError(eval.status());
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return ReportError(sizes.status());
  auto ctx = MakeEvalContext(a.backend == "cuda", a.flags.device);
  if (!ctx.ok()) return ReportError(ctx.status());
  auto task = LoadTask(**ctx, a.task, a.backend, *sizes);
  if (!task.ok()) return ReportError(task.status());
  auto model = ParseModelSpec(a.model, a.base_url);
  if (!model.ok()) return ReportError(model.status().With("--model: "));
  PriceTable prices = PriceTable::Defaults();
  if (!a.prices.empty()) {
    auto loaded = PriceTable::Load(a.prices);
    if (!loaded.ok()) return ReportError(loaded.status());
    prices.Merge(*loaded);
  }
  auto include_dir = FindIncludeDir();
  if (!include_dir.ok()) return ReportError(include_dir.status());
  std::filesystem::path prompts_dir = a.prompts_dir;
  if (prompts_dir.empty()) {
    auto found = FindPromptsDir();
    if (!found.ok()) return ReportError(found.status());
    prompts_dir = *found;
  }
  auto prompts = PromptBuilder::Load(prompts_dir, *include_dir);
  if (!prompts.ok()) return ReportError(prompts.status());
  Evaluator evaluator((*ctx)->env);

  RetryPolicy retry;
  retry.max_attempts = a.retries;
  retry.base_delay_seconds = a.retry_base_delay;
  Provider provider(*model, MakeCurlHttpClient(), retry, prices, a.concurrency);

  OptimizeOptions o;
  o.strategy = a.strategy;
  o.budget = a.budget;
  o.sampling.temperature = a.temperature;
  o.sampling.max_tokens = a.max_tokens;
  o.sampling.reasoning_effort = a.reasoning_effort;
  o.sampling.thinking_budget_tokens = a.thinking_budget;
  o.llm_concurrency = a.concurrency;
  o.eval = *eval;
  o.run_dir = a.run_dir.empty() ? DefaultRunDir(task->name) : a.run_dir;
  bool cuda = a.backend == "cuda";
  Builder* builder = cuda ? (*ctx)->cuda_builder.get() : (*ctx)->builder.get();
  MachineInfo machine = cuda ? (*ctx)->env.gpu : (*ctx)->env.machine;
  Optimizer optimizer(*task, a.backend, machine, provider, *prompts, evaluator, builder, o);

  Progress progress(a.out);
  bool warned_sandbox = false;
  auto result = optimizer.Run([&](const OptimizeEvent& e) {
    // What the sandbox could not apply on this machine, said once.
    if (!e.sandbox_missing.empty() && !warned_sandbox && !a.out.quiet) {
      progress.Clear();
      std::cerr << "hone: warning: not in force in the sandbox on this machine: "
                << e.sandbox_missing << "\n";
      warned_sandbox = true;
    }
    progress.Show(ProgressLine(e));
  });
  progress.Clear();
  if (!result.ok()) return ReportError(result.status());
  if (!a.output.empty() && result->best_id >= 0) {
    if (Status st = WriteFileAtomic(a.output, result->best_code); !st.ok()) return ReportError(st);
  }
  if (a.out.json) {
    auto j = nlohmann::json::parse(
        OptimizeResultJson(*result, model->text(), task->name, a.strategy.name));
    j["run_dir"] = o.run_dir.string();
    if (!a.output.empty() && result->best_id >= 0) j["output"] = a.output;
    std::cout << j.dump(2) << "\n";
  } else if (!a.out.quiet) {
    PrintSummary(*result, o.run_dir, result->best_id >= 0 ? a.output : "");
  }
  return kExitOk;
}

}  // namespace

Command RegisterOptimize(CLI::App& app) {
  auto a = std::make_shared<OptimizeArgs>();
  CLI::App* sub = app.add_subcommand(
      "optimize", "Search with an LLM for the fastest kernel that passes the verifier");
  sub->add_option("task", a->task,
                  "Native task folder (with task.toml) or PyTorch problem file (.py)")
      ->required();
  sub->add_option("--model", a->model,
                  "provider:model, e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, "
                  "vllm:Qwen/Qwen3-32B")
      ->required();
  sub->add_option("--base-url", a->base_url, "The endpoint's base URL (overrides the provider's)");
  sub->add_option("--backend", a->backend, "cpu (.cpp kernels) or cuda (.cu kernels)")
      ->capture_default_str();
  sub->add_option("--strategy", a->strategy.name, "sample, refine or evolve")
      ->capture_default_str();
  sub->add_option("--samples", a->strategy.samples, "sample: candidates")->capture_default_str();
  sub->add_option("--chains", a->strategy.chains, "refine: independent chains")
      ->capture_default_str();
  sub->add_option("--turns", a->strategy.turns, "refine: turns per chain")->capture_default_str();
  sub->add_option("--islands", a->strategy.islands, "evolve: islands")->capture_default_str();
  sub->add_option("--population", a->strategy.population,
                  "evolve: initial samples per island, and children per generation")
      ->capture_default_str();
  sub->add_option("--generations", a->strategy.generations, "evolve: generations")
      ->capture_default_str();
  sub->add_option("--budget-candidates", a->budget.max_candidates, "Most LLM calls (0: no limit)");
  sub->add_option("--budget-tokens", a->budget.max_tokens,
                  "Most tokens, input and output (0: no limit)");
  sub->add_option("--budget-dollars", a->budget.max_dollars, "Most US dollars (0: no limit)");
  sub->add_option("--budget-seconds", a->budget.max_seconds, "Most wall time (0: no limit)");
  sub->add_option("--target-speedup", a->budget.target_speedup,
                  "Stop once a passed kernel is this much faster than the reference");
  sub->add_option("--concurrency", a->concurrency, "LLM calls in flight at once")
      ->capture_default_str();
  sub->add_option("--temperature", a->temperature,
                  "Sampling temperature (negative: the endpoint's default)")
      ->capture_default_str();
  sub->add_option("--max-tokens", a->max_tokens, "Most output tokens per reply")
      ->capture_default_str();
  sub->add_option("--reasoning-effort", a->reasoning_effort,
                  "low, medium or high (OpenAI-style APIs)");
  sub->add_option("--thinking-budget", a->thinking_budget,
                  "Anthropic extended-thinking tokens (0: off)");
  sub->add_option("--retries", a->retries,
                  "Attempts per LLM call (429, 5xx, timeouts, dropped connections)")
      ->capture_default_str();
  sub->add_option("--retry-base-delay", a->retry_base_delay,
                  "First retry delay in seconds, doubled per retry (Retry-After wins)")
      ->capture_default_str();
  sub->add_option("--prices", a->prices, "TOML price table (US dollars per million tokens)");
  sub->add_option("--prompts", a->prompts_dir,
                  "Prompt template folder (default: the checkout's prompts/)");
  sub->add_option("-o,--output", a->output, "Write the best kernel here");
  sub->add_option("--run-dir", a->run_dir,
                  "Where the run record goes (default hone-runs/TASK-TIME)");
  AddEvalFlags(sub, a->flags);
  AddOutputFlags(sub, a->out);
  return [a] { return RunOptimize(*a); };
}

}  // namespace hone::cli
