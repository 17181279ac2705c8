#include "report/lesson_text.h"

#include <fmt/format.h>

#include "report/json_or_null.h"

namespace hone {
namespace {

using json = nlohmann::json;

constexpr size_t kChangeWidth = 70;  // of the change, in the table

json Parsed(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? json::object() : j;
}

std::string Cut(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  size_t cut = width - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

std::string SolCell(const LessonRow& l) {
  if (!l.sol_before || !l.sol_after) return "-";
  return fmt::format("{:.1f} -> {:.1f}", *l.sol_before, *l.sol_after);
}

}  // namespace

json LessonJson(const LessonRow& l) {
  return {
      {"id", l.id},
      {"run_id", l.run_id},
      {"task", l.task_name},
      {"task_hash", l.task_hash},
      {"category", l.category},
      {"backend", l.backend},
      {"basis", l.basis},
      {"candidate_id", l.candidate_id},
      {"basis_candidate_id", l.basis_candidate_id ? json(*l.basis_candidate_id) : json(nullptr)},
      {"change", l.change},
      {"speedup", {{"before", l.speedup_before}, {"after", l.speedup_after}}},
      {"sol_percent", {{"before", JsonOrNull(l.sol_before)}, {"after", JsonOrNull(l.sol_after)}}},
      {"signature", Parsed(l.signature)},
      {"evidence", Parsed(l.evidence)},
      {"created", l.created}};
}

std::string LessonsTable(const std::vector<LessonRow>& lessons) {
  std::string out = fmt::format("{:>5}  {:<20} {:<14} {:<7} {:<9} {:<17} {:<15} {}\n", "id", "task",
                                "category", "backend", "basis", "speedup", "SOL %", "change");
  for (const LessonRow& l : lessons)
    out +=
        fmt::format("{:>5}  {:<20} {:<14} {:<7} {:<9} {:<17} {:<15} {}\n", l.id,
                    Cut(l.task_name, 20), Cut(l.category.empty() ? "-" : l.category, 14), l.backend,
                    l.basis, fmt::format("{:.2f}x -> {:.2f}x", l.speedup_before, l.speedup_after),
                    SolCell(l), Cut(l.change.empty() ? "-" : l.change, kChangeWidth));
  return out;
}

}  // namespace hone
