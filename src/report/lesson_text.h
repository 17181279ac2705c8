// Stored lessons (store/records.h: LessonRow) as a person or a program
// reads them: one JSON object per lesson (`hone lessons list --json` and
// `hone lessons export`, docs/CLI.md documents the fields) and a terminal
// table. Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/records.h"

namespace hone {

// The lesson with its signature and evidence as JSON objects (not text).
nlohmann::json LessonJson(const LessonRow& lesson);

// A header line and one line per lesson: id, task, category, backend,
// speedup before -> after, SOL % before -> after, and the change (cut to
// fit a line).
std::string LessonsTable(const std::vector<LessonRow>& lessons);

}  // namespace hone
