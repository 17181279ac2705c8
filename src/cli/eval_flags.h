// Command-line flags shared by the subcommands that evaluate (eval, bench).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli/context.h"

namespace hone::cli {

struct EvalFlags {
  bool no_time = false;
  double time_budget = 2.0;
  double warmup = 0.1;
  int min_reps = 10;
  int max_reps = 1000;
  double target_rse = 0.01;
  std::string flush = "llc";
  int threads = 0;
  int input_sets = 3;  // buffer slots timed calls rotate through (EvalOptions::input_sets)
  int short_call_processes = 4;  // EvalOptions::short_call_processes
  double memory_limit_mb = 0;
  // The most memory an evaluation plans to hold, in GB (decimal); 0: what
  // is free (HONE_MEMORY_CAP gives a default). EvalOptions::memory_cap_bytes.
  double memory_cap_gb = 0;
  double call_timeout = 10;
  double timeout = 600;
  uint64_t seed = 0;
  int device = 0;
  bool no_seccomp = false, no_landlock = false, no_netns = false, profile = false;
  std::vector<std::string> allow;  // lint rules allowed
  bool no_lint = false;
  // PyTorch tasks: module-level sizes scaled by a factor or a named policy.
  double shape_scale = 0;  // 0: not given
  std::string size_policy;
  // Baselines to time when none are cached: "eager,compile", "eager" or "none";
  // empty: eager,compile unless the task times its reference only.
  std::string baselines;
  // eval --sanitize: compute-sanitizer on this candidate; bench and optimize
  // --no-sanitize: not on each task's new best (tools/sanitize.h).
  bool sanitize = false;
  bool no_sanitize = false;
  // eval and bench --metrics: profiler counters and their diagnosis for each
  // passing candidate; optimize --no-metrics: not for each (it profiles
  // every passing candidate, for the next prompt). run/profile_stage.h.
  bool metrics = false;
  bool no_metrics = false;
};

// eval's --sanitize; bench's and optimize's --no-sanitize.
void AddSanitizeFlag(CLI::App* app, EvalFlags& f);
void AddNoSanitizeFlag(CLI::App* app, EvalFlags& f);
// eval's and bench's --metrics; optimize's --no-metrics.
void AddMetricsFlag(CLI::App* app, EvalFlags& f);
void AddNoMetricsFlag(CLI::App* app, EvalFlags& f);

void AddEvalFlags(CLI::App* app, EvalFlags& f);
// The flags as stored with a run (so `--resume` evaluates the same way),
// and back; a stored document missing a field keeps that field's default.
nlohmann::json EvalFlagsToJson(const EvalFlags& f);
EvalFlags EvalFlagsFromJson(const nlohmann::json& j);
void AddOutputFlags(CLI::App* app, Output& out);
// Validated options, or Status::Invalid naming the flag.
Result<EvalOptions> ToEvalOptions(const EvalFlags& f);

// --shape-scale / --size-policy, or Status::Invalid naming the flag.
Result<SizePolicy> ToSizePolicy(const EvalFlags& f);
// --allow RULE: one rule per use, repeatable.
CLI::Option* AddAllowFlag(CLI::App* app, std::vector<std::string>& rules, const std::string& help);

}  // namespace hone::cli
