#include "tune/parts.h"

#include <fmt/format.h>

#include <cmath>

#include "tune/autotune.h"
#include "verify/note_words.h"

namespace hone {
namespace {

// The geometric mean of `values`, or 0 when one is missing (not positive).
double GeometricMean(const std::vector<double>& values) {
  double log_sum = 0;
  for (double v : values) {
    if (!(v > 0)) return 0;
    log_sum += std::log(v);
  }
  return values.empty() ? 0 : std::exp(log_sum / static_cast<double>(values.size()));
}

std::string SpeedupsByPart(const std::vector<std::pair<std::string, Verdict>>& verdicts) {
  std::string out;
  for (const auto& [label, v] : verdicts)
    out += fmt::format("{}{} {:.2f}x", out.empty() ? "" : ", ", label, v.timing.speedup);
  return out;
}

}  // namespace

Verdict CombinePartVerdicts(const std::vector<std::pair<std::string, Verdict>>& verdicts,
                            size_t total_parts) {
  HONE_CHECK(!verdicts.empty() && verdicts.size() <= total_parts, "part verdicts to combine");
  if (total_parts == 1) return verdicts.front().second;
  const auto& [last_label, last] = verdicts.back();
  if (last.status != VerdictStatus::kPassed) {
    Verdict v = last;
    v.reason =
        fmt::format("part {} of {} ({}): {}", verdicts.size(), total_parts, last_label, v.reason);
    if (verdicts.size() > 1)
      v.AddNote(notes::PartsBeforePassed(SpeedupsByPart({verdicts.begin(), verdicts.end() - 1})));
    return v;
  }
  HONE_CHECK(verdicts.size() == total_parts, "every part passed, so every part was evaluated");
  Verdict v = verdicts.front().second;
  v.timing.speedup_unresolved.clear();
  v.checks.clear();
  std::vector<double> speedups, compile, low, high;
  double build_seconds = 0;
  for (const auto& [label, part] : verdicts) {
    speedups.push_back(part.timing.speedup);
    compile.push_back(part.timing.speedup_compile);
    low.push_back(part.timing.speedup_low);
    high.push_back(part.timing.speedup_high);
    build_seconds += part.build.seconds;
    for (Check c : part.checks) {
      c.where = label + " " + c.where;
      v.checks.push_back(std::move(c));
    }
    if (v.timing.speedup_unresolved.empty() && !part.timing.speedup_unresolved.empty())
      v.timing.speedup_unresolved = label + ": " + part.timing.speedup_unresolved;
  }
  v.timing.speedup = GeometricMean(speedups);
  v.timing.speedup_compile = GeometricMean(compile);
  v.timing.speedup_low = GeometricMean(low);
  v.timing.speedup_high = GeometricMean(high);
  v.timing.speedup_pairs.clear();  // one part's pairs; the mean has none
  v.build.seconds = build_seconds;
  v.reason = fmt::format("{}, on each of {} parts", v.reason, total_parts);
  v.AddNote(notes::PartsMean(total_parts, SpeedupsByPart(verdicts)));
  return v;
}

Result<Verdict> EvaluateOnEveryPart(Evaluator& evaluator, Builder* builder,
                                    const std::vector<TaskPart>& parts,
                                    const std::filesystem::path& candidate,
                                    const EvalOptions& options, const ProgressFn& progress) {
  HONE_CHECK(!parts.empty(), "a problem has at least one part");
  std::vector<std::pair<std::string, Verdict>> verdicts;
  for (const TaskPart& part : parts) {
    ProgressFn labelled;
    if (progress)
      labelled = [&](const std::string& stage) {
        progress(parts.size() > 1 ? part.label + ": " + stage : stage);
      };
    HONE_ASSIGN_OR_RETURN(
        Verdict v, EvaluateCandidate(evaluator, builder, *part.task, candidate, options, labelled));
    const bool passed = v.status == VerdictStatus::kPassed;
    verdicts.emplace_back(part.label, std::move(v));
    if (!passed) break;
  }
  return CombinePartVerdicts(verdicts, parts.size());
}

}  // namespace hone
