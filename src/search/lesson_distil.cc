#include "search/lesson_distil.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/json_text.h"
#include "search/extract.h"
#include "search/source_change.h"
#include "task/reference_kind.h"
#include "verify/profile_json.h"

namespace hone {
namespace {

using json = nlohmann::json;

constexpr size_t kIdeaChars = 240;  // of the model's own words

json Opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// The passed attempt with the highest speedup; the earliest on a tie.
const AttemptFacts* Best(const std::vector<AttemptFacts>& attempts) {
  const AttemptFacts* best = nullptr;
  for (const AttemptFacts& a : attempts)
    if (!best || a.speedup > best->speedup || (a.speedup == best->speedup && a.seq < best->seq))
      best = &a;
  return best;
}

// The reference's SOL % on the same case: SOL % scales with speed.
std::optional<double> ReferenceSol(const AttemptFacts& a) {
  if (!a.sol_percent || a.speedup <= 0) return std::nullopt;
  return *a.sol_percent / a.speedup;
}

// The faster candidate's median interval lies wholly below the slower's
// (when both were measured with one).
bool Separated(const AttemptFacts& faster, const AttemptFacts& slower) {
  if (!faster.ci_high_us || !slower.ci_low_us) return true;
  return *faster.ci_high_us < *slower.ci_low_us;
}

// What changed from `before` (a source; "" when there is none) to `after`.
std::string ChangeText(const std::string& before, const AttemptFacts& after) {
  std::vector<std::string> parts;
  if (before.empty()) {
    std::string uses;
    for (const auto& t : SourceTechniques(after.source)) uses += (uses.empty() ? "" : ", ") + t;
    if (!uses.empty()) parts.push_back("uses " + uses);
  } else if (std::string diff = SourceChangeText(DescribeChange(before, after.source));
             !diff.empty()) {
    parts.push_back(diff);
  }
  if (!after.tuned_params.empty()) parts.push_back("tuned " + after.tuned_params);
  if (std::string idea = ReplyProse(after.reply, kIdeaChars); !idea.empty())
    parts.push_back("the model said: \"" + idea + "\"");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

LessonRow BaseRow(const LessonSubject& s, const AttemptFacts& a) {
  LessonRow l;
  l.run_id = s.run_id;
  l.task_hash = s.task_hash;
  l.task_name = s.signature.name;
  l.category = s.signature.category;
  l.backend = s.signature.backend;
  l.signature = JsonText(SignatureToJson(s.signature));
  l.candidate_id = a.candidate_id;
  l.speedup_after = a.speedup;
  l.sol_after = a.sol_percent;
  return l;
}

// What a lesson rests on, about the attempt `a` itself; each basis adds its
// own side.
json Evidence(const LessonSubject& s, const AttemptFacts& a) {
  json evidence = json{{"run_id", s.run_id},
                       {"seq", a.seq},
                       {"kind", a.kind},
                       {"evaluation_id", a.evaluation_id},
                       {"timed_case", a.timed_case},
                       {"candidate_median_us", Opt(a.median_us)}};
  if (!a.profile_label.empty()) evidence["profile_after"] = a.profile_label;
  return evidence;
}

LessonRow AgainstReference(const LessonSubject& s, const AttemptFacts& best) {
  LessonRow l = BaseRow(s, best);
  l.basis = "reference";
  l.speedup_before = 1;
  l.sol_before = ReferenceSol(best);
  l.change = ChangeText(s.reference_source, best);
  json evidence = Evidence(s, best);
  evidence["reference_median_us"] = Opt(best.ref_median_us);
  l.evidence = JsonText(evidence);
  return l;
}

LessonRow AgainstParent(const LessonSubject& s, const AttemptFacts& a, const AttemptFacts& p) {
  LessonRow l = BaseRow(s, a);
  l.basis = "parent";
  l.basis_candidate_id = p.candidate_id;
  l.speedup_before = p.speedup;
  l.sol_before = p.sol_percent;
  l.change = ChangeText(p.source, a);
  json evidence = Evidence(s, a);
  evidence["basis_seq"] = p.seq;
  evidence["basis_evaluation_id"] = p.evaluation_id;
  evidence["basis_median_us"] = Opt(p.median_us);
  if (!p.profile_label.empty()) evidence["profile_before"] = p.profile_label;
  l.evidence = JsonText(evidence);
  return l;
}

// Passed attempts that beat the fastest passed attempt they were written
// from, the largest gains first.
std::vector<std::pair<const AttemptFacts*, const AttemptFacts*>> Steps(
    const std::vector<AttemptFacts>& attempts) {
  std::map<int, const AttemptFacts*> by_seq;
  for (const AttemptFacts& a : attempts) by_seq[a.seq] = &a;
  std::vector<std::pair<const AttemptFacts*, const AttemptFacts*>> steps;
  for (const AttemptFacts& a : attempts) {
    const AttemptFacts* parent = nullptr;
    for (int seq : a.parents)
      if (auto it = by_seq.find(seq); it != by_seq.end() && it->second != &a)
        if (!parent || it->second->speedup > parent->speedup) parent = it->second;
    if (parent && parent->speedup > 0 && a.speedup >= parent->speedup * kMinLessonGain &&
        Separated(a, *parent))
      steps.push_back({&a, parent});
  }
  auto gain = [](const auto& s) { return s.first->speedup / s.second->speedup; };
  std::stable_sort(steps.begin(), steps.end(),
                   [&](const auto& x, const auto& y) { return gain(x) > gain(y); });
  return steps;
}

}  // namespace

std::optional<AttemptFacts> FactsOf(const CandidateWithEvaluation& row) {
  const CandidateRow& c = row.candidate;
  if (!row.evaluation || !c.source) return std::nullopt;
  const EvaluationRow& e = *row.evaluation;
  if (e.state != "finished" || e.status != "passed" || !e.speedup || *e.speedup <= 0)
    return std::nullopt;
  AttemptFacts f;
  f.candidate_id = c.id;
  f.evaluation_id = e.id;
  f.seq = c.seq;
  f.parents = c.parents;
  f.kind = c.kind;
  f.source = *c.source;
  f.reply = c.reply;
  f.speedup = *e.speedup;
  f.sol_percent = e.sol_percent;
  f.median_us = e.cand_median_us;
  f.ci_low_us = e.cand_ci_low_us;
  f.ci_high_us = e.cand_ci_high_us;
  f.ref_median_us = e.ref_median_us;
  json v = json::parse(e.verdict, nullptr, false);
  const json timing = v.is_object() ? v.value("timing", json::object()) : json::object();
  f.resolved = timing.is_object() && timing.value("speedup_resolved", false);
  f.timed_case = timing.is_object() ? timing.value("case", "") : "";
  if (timing.is_object() && timing.contains("speedup_interval") &&
      timing["speedup_interval"].is_array() && !timing["speedup_interval"].empty() &&
      timing["speedup_interval"][0].is_number() && timing["speedup_interval"][0] > 0)
    f.speedup_low = timing["speedup_interval"][0].get<double>();
  if (v.is_object() && v.contains("tuning") && v["tuning"].is_object())
    f.tuned_params = v["tuning"].value("params", "");
  if (f.sol_percent && *f.sol_percent <= 0) f.sol_percent.reset();
  if (std::optional<ProfileReport> p = ProfileOfVerdict(v)) f.profile_label = p->diagnosis.label;
  return f;
}

std::vector<LessonRow> DistilLessons(const LessonSubject& subject,
                                     const std::vector<AttemptFacts>& attempts) {
  std::vector<LessonRow> out;
  const AttemptFacts* best = Best(attempts);
  if (best && best->resolved && best->speedup_low.value_or(best->speedup) >= kMinLessonGain)
    out.push_back(AgainstReference(subject, *best));
  int steps = 0;
  for (const auto& [after, before] : Steps(attempts)) {
    if (steps == kMaxStepLessons || static_cast<int>(out.size()) == kMaxLessonsPerRun) break;
    out.push_back(AgainstParent(subject, *after, *before));
    ++steps;
  }
  return out;
}

Result<int> RecordRunLessons(Store& store, int64_t run_id, const Task& task,
                             const std::string& backend) {
  HONE_ASSIGN_OR_RETURN(auto rows, store.RunCandidates(run_id));
  std::vector<AttemptFacts> attempts;
  for (const auto& row : rows)
    if (auto f = FactsOf(row)) attempts.push_back(std::move(*f));
  LessonSubject subject;
  subject.run_id = run_id;
  subject.task_hash = task.hash;
  subject.signature = SignatureOf(task, backend);
  if (auto path = KindOf(task).programs().ReferenceProgram(task, backend))
    if (auto source = ReadFile(*path); source.ok()) subject.reference_source = *source;
  std::vector<LessonRow> lessons = DistilLessons(subject, attempts);
  if (lessons.empty()) return 0;
  return store.AddLessons(lessons);
}

}  // namespace hone
