#include "search/lesson_recall.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/json_text.h"

namespace hone {
namespace {

using json = nlohmann::json;

constexpr const char* kFrozenFile = "lessons.json";

double Gain(const LessonRow& l) {
  return l.speedup_before > 0 ? l.speedup_after / l.speedup_before : 0;
}

bool Before(const RecalledLesson& a, const RecalledLesson& b) {
  if (a.similarity != b.similarity) return a.similarity > b.similarity;
  if (Gain(a.lesson) != Gain(b.lesson)) return Gain(a.lesson) > Gain(b.lesson);
  return a.lesson.id > b.lesson.id;
}

// "elementwise, f32" from the lesson's signature.
std::string KindOf(const LessonRow& l) {
  TaskSignature s = SignatureFromJson(json::parse(l.signature, nullptr, false));
  std::string out = l.category.empty() ? "uncategorised" : l.category;
  for (const auto& d : s.dtypes) out += ", " + d;
  return out;
}

std::string SolText(const LessonRow& l) {
  if (!l.sol_before || !l.sol_after) return "";
  return fmt::format(", SOL {:.1f}% -> {:.1f}%", *l.sol_before, *l.sol_after);
}

// ", profiler: underutilised, memory-bound -> near the memory ceiling", from
// the diagnoses the lesson's evidence kept; "" when it has none.
std::string ProfilerText(const LessonRow& l) {
  json e = json::parse(l.evidence, nullptr, false);
  if (!e.is_object()) return "";
  std::string before = e.value("profile_before", ""), after = e.value("profile_after", "");
  if (after.empty()) return "";
  return ", profiler: " + (before.empty() ? "" : before + " -> ") + after;
}

Result<std::vector<ShownLesson>> ReadFrozen(const std::filesystem::path& file) {
  HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(file));
  json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("lessons") || !j["lessons"].is_array())
    return Status::Invalid(file.string() + ": not a list of lessons (delete it to recall again)");
  std::vector<ShownLesson> out;
  for (const json& l : j["lessons"]) {
    if (!l.is_object() || !l.contains("text") || !l["text"].is_string())
      return Status::Invalid(file.string() + ": a lesson without its text");
    out.push_back({l.value("id", int64_t{0}), l.value("similarity", 0.0), l["text"]});
  }
  return out;
}

Status WriteFrozen(const std::filesystem::path& file, const std::vector<ShownLesson>& lessons) {
  json list = json::array();
  for (const auto& l : lessons)
    list.push_back({{"id", l.id}, {"similarity", l.similarity}, {"text", l.text}});
  return WriteFileAtomic(file, JsonText(json{{"lessons", list}}, 2) + "\n");
}

}  // namespace

std::vector<RecalledLesson> RankLessons(const std::vector<LessonRow>& lessons,
                                        const TaskSignature& task, const RecallOptions& options) {
  std::vector<RecalledLesson> scored;
  for (const LessonRow& l : lessons) {
    if (l.backend != task.backend) continue;
    double s = TaskSimilarity(task, SignatureFromJson(json::parse(l.signature, nullptr, false)));
    if (s >= options.min_similarity) scored.push_back({l, s});
  }
  std::stable_sort(scored.begin(), scored.end(), Before);
  std::vector<RecalledLesson> out;
  std::map<int64_t, int> per_run;
  for (auto& r : scored) {
    if (static_cast<int>(out.size()) >= options.limit) break;
    if (per_run[r.lesson.run_id]++ >= kMaxRecalledPerRun) continue;
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<RecalledLesson>> RecallLessons(Store& store, const TaskSignature& task,
                                                  const RecallOptions& options) {
  HONE_ASSIGN_OR_RETURN(std::vector<LessonRow> lessons, store.LessonsFor(task.backend));
  return RankLessons(lessons, task, options);
}

std::string LessonPromptLine(const RecalledLesson& r) {
  const LessonRow& l = r.lesson;
  std::string head =
      fmt::format("{} ({}; similarity {:.2f}): ", l.task_name, KindOf(l), r.similarity);
  std::string gain =
      l.basis == "reference"
          ? fmt::format("the best kernel ran {:.2f}x faster than the task's reference{}",
                        l.speedup_after, SolText(l) + ProfilerText(l))
          : fmt::format("one change took a kernel from {:.2f}x to {:.2f}x the reference's speed{}",
                        l.speedup_before, l.speedup_after, SolText(l) + ProfilerText(l));
  return head + gain + (l.change.empty() ? "." : ". What changed: " + l.change);
}

Result<std::vector<ShownLesson>> LessonsForRun(Store& store, const TaskSignature& task,
                                               const std::filesystem::path& dir,
                                               bool run_has_attempts) {
  const std::filesystem::path file = dir / kFrozenFile;
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return ReadFrozen(file);
  std::vector<ShownLesson> shown;
  if (!run_has_attempts) {
    HONE_ASSIGN_OR_RETURN(auto recalled, RecallLessons(store, task));
    for (const auto& r : recalled)
      shown.push_back({r.lesson.id, r.similarity, LessonPromptLine(r)});
  }
  HONE_RETURN_IF_ERROR(WriteFrozen(file, shown));
  return shown;
}

}  // namespace hone
