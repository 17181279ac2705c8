#include "cli/eval_flags.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "cli/number_flags.h"
#include "lang/builtin.h"
#include "pytorch/timing_processes.h"
#include "verify/lint.h"

namespace hone::cli {

void AddEvalFlags(CLI::App* app, EvalFlags& f) {
  app->add_flag("--no-time", f.no_time, "Verify only; skip timing");
  app->add_option("--time-budget", f.time_budget, "Seconds for the timed phase (both sides)")
      ->capture_default_str();
  app->add_option("--warmup", f.warmup, "Warm-up seconds before timing")->capture_default_str();
  app->add_option("--min-reps", f.min_reps, "Fewest timed repetitions")->capture_default_str();
  app->add_option("--max-reps", f.max_reps, "Most timed repetitions")->capture_default_str();
  app->add_option("--target-rse", f.target_rse,
                  "Stop timing once the median's relative standard error is below this")
      ->capture_default_str();
  app->add_option("--flush", f.flush,
                  "Cache flush before each timed call: llc (2x last-level cache), lines "
                  "(clflush the tensors), none")
      ->capture_default_str();
  app->add_option("--threads", f.threads, "OpenMP threads in the sandbox (0: all cores)");
  app->add_option("--input-sets", f.input_sets,
                  "Buffer slots (value sets, each at its own place in memory) that timed calls "
                  "rotate through; fewer when memory is short")
      ->capture_default_str();
  app->add_option("--short-call-processes", f.short_call_processes,
                  "PyTorch tasks: sandbox processes the candidate and each baseline are timed in "
                  "when their calls take under 20 us, twice as many under 10 us (each process "
                  "has an offset of its own; 1: one process)")
      ->capture_default_str();
  app->add_option("--memory-limit", f.memory_limit_mb,
                  "Memory for the candidate's own allocations in MiB (default: an eighth of RAM, "
                  "at most 2048)");
  app->add_option("--memory-cap", f.memory_cap_gb,
                  "The most memory one evaluation plans to hold on the GPU (or the host), in GB: "
                  "what a smaller card would have (default: what is free; HONE_MEMORY_CAP)");
  app->add_option("--call-timeout", f.call_timeout, "Longest one call may take, in seconds")
      ->capture_default_str();
  app->add_option("--timeout", f.timeout, "Longest one whole evaluation may take, in seconds")
      ->capture_default_str();
  app->add_option("--device", f.device, "GPU to evaluate CUDA candidates on")
      ->capture_default_str();
  app->add_option("--seed", f.seed,
                  "Offsets every generated input (reproduce with the same value)");
  AddAllowFlag(app, f.allow,
               "Allow a lint rule for this evaluation (repeatable), e.g. --allow library; "
               "`hone lint --rules` lists them");
  app->add_flag("--no-lint", f.no_lint,
                "Debugging only: skip the static lint (the run-time checks still apply)");
  app->add_option("--shape-scale", f.shape_scale,
                  "PyTorch tasks: multiply module-level integer sizes by this factor in (0, 1]");
  app->add_option("--size-policy", f.size_policy,
                  "PyTorch tasks: pick the scale by memory budget: full, cpu24g, small, tiny");
  app->add_option("--baselines", f.baselines,
                  "PyTorch tasks: baselines to time when none are cached: eager,compile, eager "
                  "or none (torch.compile can take minutes per problem; default eager,compile, "
                  "eager for FlashInfer-Trace, whose speedup is against its reference)");
  app->add_flag("--no-seccomp", f.no_seccomp, "Debugging only: do not install the seccomp filter");
  app->add_flag("--no-landlock", f.no_landlock, "Debugging only: do not restrict the file system");
  app->add_flag("--no-netns", f.no_netns, "Debugging only: keep the network namespace");
  app->add_flag("--profile", f.profile,
                "Run under an outside profiler (ncu, nsys): the sandbox keeps hone's environment "
                "and user and is not confined (implies the three --no-* flags); trusted code only");
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EvalFlags, no_time, time_budget, warmup, min_reps,
                                                max_reps, target_rse, flush, threads, input_sets,
                                                short_call_processes, memory_limit_mb,
                                                memory_cap_gb, call_timeout, timeout, seed, device,
                                                no_seccomp, no_landlock, no_netns, profile, allow,
                                                no_lint, shape_scale, size_policy, baselines,
                                                sanitize, no_sanitize, metrics, no_metrics)

void AddSanitizeFlag(CLI::App* app, EvalFlags& f) {
  app->add_flag("--sanitize", f.sanitize,
                "CUDA: after verification, run compute-sanitizer (memcheck, racecheck, initcheck) "
                "on the smallest case; memcheck errors fail the verdict");
}

void AddNoSanitizeFlag(CLI::App* app, EvalFlags& f) {
  app->add_flag("--no-sanitize", f.no_sanitize,
                "CUDA: do not run compute-sanitizer on each task's new best candidate");
}

void AddMetricsFlag(CLI::App* app, EvalFlags& f) {
  app->add_flag("--metrics", f.metrics,
                "After timing, profile each passing candidate on its timed case (CUDA: ncu; CPU: "
                "perf_event counters) and diagnose what limits it (docs/PROFILING.md)");
}

void AddNoMetricsFlag(CLI::App* app, EvalFlags& f) {
  app->add_flag("--no-metrics", f.no_metrics,
                "Do not profile passing candidates (the profiler's diagnosis is then missing "
                "from the feedback)");
}

nlohmann::json EvalFlagsToJson(const EvalFlags& f) { return f; }

EvalFlags EvalFlagsFromJson(const nlohmann::json& j) {
  EvalFlags f;
  if (j.is_object()) j.get_to(f);
  return f;
}

void AddOutputFlags(CLI::App* app, Output& out) {
  app->add_flag("--json", out.json, "Print one JSON document on stdout");
  app->add_flag("-q,--quiet", out.quiet, "No progress, only the result");
  // Checked while parsing: a log that cannot be written is bad input (exit
  // 2) before any work, not a warning after it.
  app->add_option("--log", out.log_file,
                  "Append progress and results to this file, with timestamps")
      ->check(
          [](const std::string& file) -> std::string {
            std::error_code ec;
            std::filesystem::path parent = std::filesystem::path(file).parent_path();
            if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
              return "the folder " + parent.string() + " does not exist";
            if (std::filesystem::is_directory(file, ec))
              return file + " is a folder; name the file to write";
            return "";
          },
          "FILE");
  out.terminal = isatty(2);
}

CLI::Option* AddAllowFlag(CLI::App* app, std::vector<std::string>& rules, const std::string& help) {
  // One value per use: a vector option would otherwise go on taking the
  // positional arguments that follow it (`--allow library TASK CANDIDATE`).
  return app->add_option("--allow", rules, help)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

namespace {

// --memory-cap in bytes, or HONE_MEMORY_CAP's when the flag is not given;
// 0: none. Not a finite positive number of GB is bad input naming where it
// came from.
Result<int64_t> MemoryCapBytes(double flag_gb) {
  std::string from = "--memory-cap";
  double gb = flag_gb;
  if (gb == 0) {
    const char* env = std::getenv("HONE_MEMORY_CAP");
    if (!env || !*env) return int64_t{0};
    from = "HONE_MEMORY_CAP";
    char* end = nullptr;
    gb = std::strtod(env, &end);
    if (end == env || *end != '\0')
      return Status::Invalid(from + ": expected GB, got '" + env + "'");
  }
  if (!(std::isfinite(gb) && gb > 0 && gb < 1e6))
    return Status::Invalid(from + ": must be a positive number of GB (below a million)");
  return static_cast<int64_t>(gb * 1e9);
}

}  // namespace

Result<EvalOptions> ToEvalOptions(const EvalFlags& f) {
  EvalOptions o;
  auto flush = ParseFlushMode(f.flush);
  if (!flush) return Status::Invalid("--flush: expected llc, lines or none, got '" + f.flush + "'");
  HONE_ASSIGN_OR_RETURN(const double time_budget,
                        CheckedSeconds("--time-budget", f.time_budget, false));
  HONE_ASSIGN_OR_RETURN(const double warmup, CheckedSeconds("--warmup", f.warmup, true));
  if (!(std::isfinite(f.target_rse) && f.target_rse > 0))
    return Status::Invalid("--target-rse: must be a positive number");
  if (f.device < 0) return Status::Invalid("--device: must not be negative");
  if (f.threads < 0) return Status::Invalid("--threads: must not be negative (0: all cores)");
  if (f.input_sets < 1 || f.input_sets > 64)
    return Status::Invalid("--input-sets: must be between 1 and 64");
  if (f.short_call_processes < 1 || f.short_call_processes > kMaxShortCallProcesses)
    return Status::Invalid("--short-call-processes: must be between 1 and 16");
  if (f.min_reps < 3 || f.max_reps < f.min_reps)
    return Status::Invalid("--min-reps/--max-reps: need 3 <= min-reps <= max-reps");
  HONE_ASSIGN_OR_RETURN(const double call_timeout,
                        CheckedSeconds("--call-timeout", f.call_timeout, false));
  HONE_ASSIGN_OR_RETURN(const double timeout, CheckedSeconds("--timeout", f.timeout, false));
  HONE_RETURN_IF_ERROR(CheckFiniteNumber("--memory-limit", f.memory_limit_mb));
  if (f.memory_limit_mb > 1e9)  // a petabyte; more would overflow the bytes
    return Status::Invalid("--memory-limit: expected at most 1e9 MB");
  HONE_ASSIGN_OR_RETURN(o.memory_cap_bytes, MemoryCapBytes(f.memory_cap_gb));
  o.time = !f.no_time;
  o.sanitize = f.sanitize;
  o.metrics = f.metrics;
  o.flush = *flush;
  o.timing.budget_seconds = time_budget;
  o.timing.warmup_seconds = warmup;
  o.timing.min_reps = f.min_reps;
  o.timing.max_reps = f.max_reps;
  o.timing.target_rse = f.target_rse;
  o.threads = f.threads;
  o.input_sets = f.input_sets;
  o.short_call_processes = f.short_call_processes;
  o.memory_limit_bytes = static_cast<size_t>(f.memory_limit_mb * 1024 * 1024);
  o.max_call_timeout = std::chrono::milliseconds(static_cast<int64_t>(call_timeout * 1000));
  o.min_call_timeout = std::min(o.min_call_timeout, o.max_call_timeout);
  o.total_timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout * 1000));
  o.seed = f.seed;
  o.seccomp = !f.no_seccomp;
  o.landlock = !f.no_landlock;
  o.netns = !f.no_netns;
  o.profile = f.profile;
  o.lint = !f.no_lint;
  HONE_ASSIGN_OR_RETURN(o.lint_allow, ParseAllowedRules(f.allow, BuiltInLanguages()));
  if (!f.baselines.empty()) HONE_RETURN_IF_ERROR(ApplyBaselines(f.baselines, "--baselines", o));
  if (f.profile) o.seccomp = o.landlock = o.netns = false;
  return o;
}

Result<SizePolicy> ToSizePolicy(const EvalFlags& f) {
  SizePolicy p;
  if (f.shape_scale != 0 && !f.size_policy.empty())
    return Status::Invalid("--shape-scale and --size-policy: give one, not both");
  if (f.shape_scale != 0) {
    if (!(f.shape_scale > 0 && f.shape_scale <= 1))
      return Status::Invalid("--shape-scale: must be in (0, 1], got " +
                             std::to_string(f.shape_scale));
    p.shape_scale = f.shape_scale;
  }
  if (!f.size_policy.empty()) {
    static const char* kPolicies[] = {"full", "cpu24g", "small", "tiny"};
    bool known = false;
    for (const char* k : kPolicies) known = known || f.size_policy == k;
    if (!known)
      return Status::Invalid("--size-policy: unknown policy '" + f.size_policy +
                             "' (full, cpu24g, small, tiny)");
    p.policy = f.size_policy;
  }
  return p;
}

}  // namespace hone::cli
