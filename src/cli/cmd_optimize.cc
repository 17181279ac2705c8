// hone optimize TASK --model PROVIDER:MODEL: the LLM search for the fastest
// kernel that passes the verifier.
#include <fmt/format.h>

#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/store_flags.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/paths.h"
#include "search/optimizer.h"
#include "task/task_loader.h"

namespace hone::cli {
namespace {

struct OptimizeArgs {
  std::string task, model, base_url, backend = "cpu", output, run_dir, prices, prompts_dir;
  std::string store, resume, name;
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

// What a run is started with, stored so that --resume continues it the same
// way.
nlohmann::json ConfigOf(const OptimizeArgs& a) {
  auto abs = [](const std::string& p) {
    return p.empty() ? p : std::filesystem::absolute(p).lexically_normal().string();
  };
  const StrategyOptions& st = a.strategy;
  const Budget& b = a.budget;
  return {{"task", abs(a.task)},
          {"model", a.model},
          {"base_url", a.base_url},
          {"backend", a.backend},
          {"strategy",
           {{"name", st.name},
            {"samples", st.samples},
            {"chains", st.chains},
            {"turns", st.turns},
            {"islands", st.islands},
            {"population", st.population},
            {"generations", st.generations}}},
          {"budget",
           {{"candidates", b.max_candidates},
            {"tokens", b.max_tokens},
            {"dollars", b.max_dollars},
            {"seconds", b.max_seconds},
            {"target_speedup", b.target_speedup}}},
          {"concurrency", a.concurrency},
          {"max_tokens", a.max_tokens},
          {"thinking_budget", a.thinking_budget},
          {"retries", a.retries},
          {"temperature", a.temperature},
          {"retry_base_delay", a.retry_base_delay},
          {"reasoning_effort", a.reasoning_effort},
          {"prices", abs(a.prices)},
          {"prompts_dir", abs(a.prompts_dir)},
          {"output", abs(a.output)},
          {"run_dir", abs(a.run_dir)},
          {"flags", EvalFlagsToJson(a.flags)}};
}

void ApplyConfig(const nlohmann::json& c, OptimizeArgs& a) {
  a.task = c.value("task", "");
  a.model = c.value("model", "");
  a.base_url = c.value("base_url", "");
  a.backend = c.value("backend", "cpu");
  auto st = c.value("strategy", nlohmann::json::object());
  a.strategy.name = st.value("name", a.strategy.name);
  a.strategy.samples = st.value("samples", a.strategy.samples);
  a.strategy.chains = st.value("chains", a.strategy.chains);
  a.strategy.turns = st.value("turns", a.strategy.turns);
  a.strategy.islands = st.value("islands", a.strategy.islands);
  a.strategy.population = st.value("population", a.strategy.population);
  a.strategy.generations = st.value("generations", a.strategy.generations);
  auto b = c.value("budget", nlohmann::json::object());
  a.budget.max_candidates = b.value("candidates", 0);
  a.budget.max_tokens = b.value("tokens", int64_t{0});
  a.budget.max_dollars = b.value("dollars", 0.0);
  a.budget.max_seconds = b.value("seconds", 0.0);
  a.budget.target_speedup = b.value("target_speedup", 0.0);
  a.concurrency = c.value("concurrency", a.concurrency);
  a.max_tokens = c.value("max_tokens", a.max_tokens);
  a.thinking_budget = c.value("thinking_budget", a.thinking_budget);
  a.retries = c.value("retries", a.retries);
  a.temperature = c.value("temperature", a.temperature);
  a.retry_base_delay = c.value("retry_base_delay", a.retry_base_delay);
  a.reasoning_effort = c.value("reasoning_effort", "");
  a.prices = c.value("prices", "");
  a.prompts_dir = c.value("prompts_dir", "");
  a.output = c.value("output", "");
  a.run_dir = c.value("run_dir", "");
  a.flags = EvalFlagsFromJson(c.value("flags", nlohmann::json::object()));
}

// Opens the run to write: a new one, or the stored one named by --resume
// (whose stored options replace the command line's).
Result<int64_t> OpenRun(Store& store, OptimizeArgs& a) {
  if (a.resume.empty()) {
    if (a.task.empty()) return Status::Invalid("optimize: give a TASK (or --resume RUN)");
    if (a.model.empty()) return Status::Invalid("--model: required (unless --resume)");
    if (a.run_dir.empty()) a.run_dir = DefaultRunDir(std::filesystem::path(a.task).stem().string());
    return store.CreateRun("optimize", ConfigOf(a).dump(), a.name);
  }
  HONE_ASSIGN_OR_RETURN(int64_t id, ResolveRun(store, a.resume));
  HONE_ASSIGN_OR_RETURN(RunRow run, store.GetRun(id));
  if (run.kind != "optimize")
    return Status::Invalid(
        fmt::format("--resume {}: run {} is a {} run; resume it with hone {} "
                    "--resume",
                    a.resume, id, run.kind, run.kind));
  auto config = nlohmann::json::parse(run.config, nullptr, false);
  if (!config.is_object() || config.value("task", "").empty())
    return Status::Invalid(
        fmt::format("--resume {}: run {} has no stored task (imported runs "
                    "cannot be resumed)",
                    a.resume, id));
  std::string given = a.task;
  ApplyConfig(config, a);
  if (!given.empty() && std::filesystem::absolute(given).lexically_normal().string() != a.task)
    return Status::Invalid(
        fmt::format("--resume {}: run {} optimizes {}, not {}", a.resume, id, a.task, given));
  HONE_RETURN_IF_ERROR(store.SetRunStatus(id, "running"));
  return id;
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
  if (r.replayed > 0 || r.stored_verdicts > 0)
    std::cout << fmt::format("resumed: {} stored replies and {} stored verdicts reused\n",
                             r.replayed, r.stored_verdicts);
}

Status RecordTask(Store& store, int64_t run_id, const Task& task, const std::string& path,
                  bool resumed) {
  if (resumed) {
    auto tasks = store.RunTasks(run_id);
    if (!tasks.ok()) return tasks.status();
    if (!tasks->empty() && tasks->front().task_hash != task.hash)
      return Status::Invalid(path + ": the task changed since run " + std::to_string(run_id) +
                             " started (its content hash differs); start a new run");
  }
  HONE_RETURN_IF_ERROR(store.PutTask(
      {task.hash, task.name, std::filesystem::absolute(path).lexically_normal().string(), ""}));
  return store.AddRunTask(run_id, task.hash, "", 0);
}

int RunOptimize(OptimizeArgs a) {
  auto store = OpenStore(a.store);
  if (!store.ok()) return ReportError(store.status());
  bool resumed = !a.resume.empty();
  auto run_id = OpenRun(**store, a);
  if (!run_id.ok()) return ReportError(run_id.status());
  auto fail = [&](const Status& st) {
    (void)(*store)->SetRunStatus(*run_id, "failed");
    return ReportError(st);
  };
  if (Status st = Validate(a); !st.ok()) return fail(st);
  auto eval = ToEvalOptions(a.flags);
  if (!eval.ok()) return fail(eval.status());
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return fail(sizes.status());
  auto ctx = MakeEvalContext(a.backend == "cuda", a.flags.device);
  if (!ctx.ok()) return fail(ctx.status());
  auto task = LoadTask(**ctx, a.task, a.backend, *sizes);
  if (!task.ok()) return fail(task.status());
  if (Status st = RecordTask(**store, *run_id, *task, a.task, resumed); !st.ok()) return fail(st);
  auto model = ParseModelSpec(a.model, a.base_url);
  if (!model.ok()) return fail(model.status().With("--model: "));
  PriceTable prices = PriceTable::Defaults();
  if (!a.prices.empty()) {
    auto loaded = PriceTable::Load(a.prices);
    if (!loaded.ok()) return fail(loaded.status());
    prices.Merge(*loaded);
  }
  auto include_dir = FindIncludeDir();
  if (!include_dir.ok()) return fail(include_dir.status());
  std::filesystem::path prompts_dir = a.prompts_dir;
  if (prompts_dir.empty()) {
    auto found = FindPromptsDir();
    if (!found.ok()) return fail(found.status());
    prompts_dir = *found;
  }
  auto prompts = PromptBuilder::Load(prompts_dir, *include_dir);
  if (!prompts.ok()) return fail(prompts.status());
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
  o.run_dir = a.run_dir;
  o.store = store->get();
  o.run_id = *run_id;
  o.options_hash = ContentHash({"optimize-options-v1", a.backend, EvalFlagsToJson(a.flags).dump()});
  if (!a.out.quiet && !a.out.json)
    std::fprintf(stderr, "hone: %s optimize run %lld in %s\n", resumed ? "resuming" : "started",
                 static_cast<long long>(*run_id), (*store)->path().c_str());
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
  if (!result.ok()) return fail(result.status());
  if (Status st = (*store)->SetRunStatus(
          *run_id, "finished",
          OptimizeResultJson(*result, model->text(), task->name, a.strategy.name));
      !st.ok())
    return ReportError(st);
  if (!a.output.empty() && result->best_id >= 0) {
    if (Status st = WriteFileAtomic(a.output, result->best_code); !st.ok()) return ReportError(st);
  }
  if (a.out.json) {
    auto j = nlohmann::json::parse(
        OptimizeResultJson(*result, model->text(), task->name, a.strategy.name));
    j["run_dir"] = o.run_dir.string();
    j["run_id"] = *run_id;
    j["store"] = (*store)->path().string();
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
                  "Native task folder (with task.toml) or PyTorch problem file (.py)");
  sub->add_option("--model", a->model,
                  "provider:model, e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, "
                  "vllm:Qwen/Qwen3-32B (required unless --resume)");
  sub->add_option("--resume", a->resume,
                  "Continue this optimize run (an id, or 'last') with its stored options: stored "
                  "replies and verdicts are reused, not asked or evaluated again");
  sub->add_option("--name", a->name, "A label for the run");
  AddStoreFlag(sub, a->store);
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
