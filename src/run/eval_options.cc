#include "run/eval_options.h"

#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "core/json_text.h"

namespace hone {

std::string FlushModeName(FlushMode m) {
  switch (m) {
    case FlushMode::kLlc:
      return "llc";
    case FlushMode::kLines:
      return "lines";
    case FlushMode::kNone:
      return "none";
  }
  return "unknown";
}

std::optional<FlushMode> ParseFlushMode(const std::string& s) {
  if (s == "llc") return FlushMode::kLlc;
  if (s == "lines") return FlushMode::kLines;
  if (s == "none") return FlushMode::kNone;
  return std::nullopt;
}

size_t DefaultMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  size_t ram =
      pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : (8ull << 30);
  return std::min<size_t>(ram / 8, 2ull << 30);
}

Status ApplyBaselines(const std::string& baselines, const std::string& where, EvalOptions& o) {
  if (baselines == "eager,compile" || baselines == "compile,eager") {
    o.eager_baseline = o.compile_baseline = true;
  } else if (baselines == "eager") {
    o.eager_baseline = true;
    o.compile_baseline = false;
  } else if (baselines == "none") {
    o.eager_baseline = o.compile_baseline = false;
  } else {
    return Status::Invalid(where + ": expected eager,compile, eager or none, got '" + baselines +
                           "'");
  }
  o.baselines_chosen = true;
  return Status::Ok();
}

Result<std::set<std::string>> ParseAllowedRules(const std::vector<std::string>& names,
                                                const LanguageRegistry& languages) {
  std::set<std::string> rules;
  for (const auto& name : names) {
    if (!languages.IsRule(name))
      return Status::Invalid("--allow: unknown lint rule '" + name +
                             "' (hone lint --rules lists them)");
    rules.insert(name);
  }
  return rules;
}

std::string EvalIdentity(const std::string& backend, const EvalOptions& o,
                         const std::string& sizes) {
  const TimingPolicy& t = o.timing;
  nlohmann::json j = {
      {"backend", backend},
      {"sizes", sizes},
      {"time", o.time},
      {"timing",
       {t.warmup_seconds, t.min_warmup_calls, t.min_reps, t.max_reps, t.target_rse,
        t.budget_seconds, t.paired}},
      {"flush", FlushModeName(o.flush)},
      {"input_sets", o.input_sets},
      {"short_calls", {o.short_call_processes, o.short_call_seconds}},
      {"timeouts_ms",
       {o.max_call_timeout.count(), o.min_call_timeout.count(), o.call_timeout_factor,
        o.start_timeout.count(), o.total_timeout.count()}},
      {"memory_limit", o.memory_limit_bytes},
      {"threads", o.threads},
      {"seed", o.seed},
      {"sandbox", {o.seccomp, o.landlock, o.netns, o.profile}},
      {"lint", o.lint},
      {"allow", o.lint_allow},
      {"baselines", {o.eager_baseline, o.compile_baseline, o.baselines_chosen}},
      {"sanitize", o.sanitize},
      {"metrics", o.metrics},
  };
  // Only when given: the identity of every uncapped evaluation stays as it was.
  if (o.memory_cap_bytes > 0) j["memory_cap"] = o.memory_cap_bytes;
  return ContentHash({"eval-identity-v1", JsonText(j)});
}

}  // namespace hone
