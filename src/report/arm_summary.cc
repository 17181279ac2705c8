#include "report/arm_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/speedup_gain.h"
#include "store/candidate_kind.h"

namespace hone {
namespace {

// An optimize run keeps its search flags at the top of its config, a bench
// with a model under "search".
bool IsAutoRun(const RunData& run) {
  auto config = nlohmann::json::parse(run.run.config, nullptr, false);
  if (config.is_object() && config.contains("search")) config = config["search"];
  if (!config.is_object() || !config.contains("strategy") || !config["strategy"].is_object())
    return false;
  return config["strategy"].value("name", "") == "auto";
}

// Every attempt and call for ideas, in the order proposed.
std::vector<const AttemptView*> BySeq(const RunData& run) {
  std::vector<const AttemptView*> all;
  for (const auto* list : {&run.attempts, &run.planning})
    for (const AttemptView& a : *list) all.push_back(&a);
  std::stable_sort(all.begin(), all.end(), [](const AttemptView* x, const AttemptView* y) {
    return x->candidate.seq < y->candidate.seq;
  });
  return all;
}

}  // namespace

std::vector<ArmSummary> SummarizeArms(const RunData& run) {
  std::vector<ArmSummary> arms;
  if (!IsAutoRun(run)) return arms;
  std::map<std::string, size_t> index;
  std::map<std::string, double> best;  // task hash -> best speedup so far
  for (const AttemptView* a : BySeq(run)) {
    std::string arm(ArmOfKind(a->candidate.kind));
    auto [it, fresh] = index.try_emplace(arm, arms.size());
    if (fresh) arms.push_back({arm});
    ArmSummary& s = arms[it->second];
    ++s.calls;
    if (a->call) {
      s.cost_usd += a->call->cost_usd;
      s.tokens += a->call->input_tokens + a->call->output_tokens;
    }
    if (!a->passed() || !a->evaluation->speedup) continue;
    ++s.passed;
    double& task_best = best[a->candidate.task_hash];
    s.gain += SpeedupGain(task_best, *a->evaluation->speedup);
    task_best = std::max(task_best, *a->evaluation->speedup);
  }
  return arms;
}

std::string ArmSummaryText(const std::vector<ArmSummary>& arms) {
  if (arms.empty()) return "";
  std::string out = "arms (auto): calls, passed, gain of the best speedup, cost\n";
  for (const ArmSummary& a : arms)
    out += fmt::format("  {:<8} {:>5} calls {:>5} passed  gain {:>6.2f}  ${:.4f}, {} tokens\n",
                       a.arm, a.calls, a.passed, a.gain, a.cost_usd, a.tokens);
  return out;
}

nlohmann::json ArmSummaryJson(const std::vector<ArmSummary>& arms) {
  nlohmann::json out = nlohmann::json::array();
  for (const ArmSummary& a : arms)
    out.push_back({{"arm", a.arm},
                   {"calls", a.calls},
                   {"passed", a.passed},
                   {"gain", a.gain},
                   {"cost_usd", a.cost_usd},
                   {"tokens", a.tokens}});
  return out;
}

}  // namespace hone
