// What changed between two kernel sources, in words a lesson can carry
// (search/lesson_distil.h) without asking a model: the techniques each one
// uses, recognised by the constructs that spell them (`#pragma omp`,
// `__shared__`, AVX intrinsics, `float4` loads, ...), which were added and
// which dropped, and how many lines were added and removed (a line diff).
//
// Pure functions, thread-safe. A recognised construct is evidence that a
// technique is used, not proof: a comment naming `__shared__` counts too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hone {

// The techniques `source` uses, in a fixed order, each named once.
std::vector<std::string> SourceTechniques(std::string_view source);

struct SourceChange {
  std::vector<std::string> added, removed;  // techniques
  int lines_before = 0, lines_after = 0;
  int lines_added = 0, lines_removed = 0;  // of a longest-common-subsequence line diff
};

// `before` may be empty (no source to compare with: everything is added).
// Sources too long for the line diff (more than 4 million line pairs) count
// the difference in lines instead.
SourceChange DescribeChange(std::string_view before, std::string_view after);

// "adds OpenMP threads, AVX intrinsics; drops volatile accesses; +12/-30
// lines (45 -> 27)", or "" when nothing changed.
std::string SourceChangeText(const SourceChange& c);

}  // namespace hone
