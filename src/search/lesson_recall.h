// Lessons learnt on earlier runs (search/lesson_distil.h) recalled for a
// task: those on the same backend whose task is similar enough
// (TaskSimilarity >= min_similarity, search/task_signature.h), the most
// similar first, then the largest gain, then the newest; at most `limit`,
// and at most kMaxRecalledPerRun from any one run, so that one run does
// not fill the prompt's section alone.
//
// A run's first turn must read the same when it is resumed (the run journal
// matches stored replies by prompt), so the lessons a run shows are frozen
// in its run folder, lessons.json, the first time, and read back from there
// afterwards (LessonsForRun).
//
// RankLessons and LessonPromptLine are pure; the others read the store and
// the run folder, and return their failures as Status values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "search/task_signature.h"
#include "store/records.h"
#include "store/store.h"

namespace hone {

inline constexpr int kMaxRecalledPerRun = 2;

struct RecallOptions {
  int limit = 3;
  double min_similarity = 0.6;
};

struct RecalledLesson {
  LessonRow lesson;
  double similarity = 0;
};

std::vector<RecalledLesson> RankLessons(const std::vector<LessonRow>& lessons,
                                        const TaskSignature& task, const RecallOptions& options);
Result<std::vector<RecalledLesson>> RecallLessons(Store& store, const TaskSignature& task,
                                                  const RecallOptions& options = {});

// One line, as the prompt's "Lessons from similar tasks" shows it: the
// task it was learnt on, how similar it is, the gain and SOL % it moved,
// and what changed.
std::string LessonPromptLine(const RecalledLesson& r);

// A lesson as one run's prompts show it.
struct ShownLesson {
  int64_t id = 0;
  double similarity = 0;
  std::string text;  // LessonPromptLine
};

// The lessons the run in folder `dir` shows: dir/lessons.json when it is
// there; otherwise recalled now and written there, or none (also written)
// when `run_has_attempts`: such a run was started before its folder kept
// lessons, and showing some now would change its first turn.
Result<std::vector<ShownLesson>> LessonsForRun(Store& store, const TaskSignature& task,
                                               const std::filesystem::path& dir,
                                               bool run_has_attempts);

}  // namespace hone
