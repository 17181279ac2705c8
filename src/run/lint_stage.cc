#include "run/lint_stage.h"

#include "verify/note_words.h"

namespace hone {

void ApplyLint(RunState& s, const std::vector<LintFinding>& findings, const std::string& clean) {
  const std::set<std::string> allowed = s.AllowedRules();
  LintOutcome outcome = JudgeFindings(s.language, findings, allowed);
  for (const LintFinding& w : outcome.warnings) s.v.AddNote(notes::LintWarning(DescribeFinding(w)));
  if (!outcome.rejection) {
    std::string detail = clean;
    if (!allowed.empty()) {
      std::string names;
      for (const auto& r : allowed) names += (names.empty() ? "" : ", ") + r;
      detail += (detail.empty() ? "" : "; ") + ("rules allowed for this run: " + names);
    }
    if (!outcome.warnings.empty())
      detail += (detail.empty() ? "" : "; ") + std::to_string(outcome.warnings.size()) +
                " warning(s) in the notes";
    s.v.checks.push_back({{CheckKind::kLint}, "source", true, detail});
    return;
  }
  int rejections = 0;
  for (const LintFinding& f : findings) {
    LintOutcome one = JudgeFindings(s.language, {f}, allowed);
    if (!one.rejection) continue;
    ++rejections;
    s.v.checks.push_back(
        {{CheckKind::kLint}, "line " + std::to_string(f.line), false, DescribeFinding(f)});
  }
  std::string reason = "lint: " + DescribeFinding(*outcome.rejection);
  if (rejections > 1) reason += " (and " + std::to_string(rejections - 1) + " more finding(s))";
  s.Decide(VerdictStatus::kRejected, reason);
}

}  // namespace hone
