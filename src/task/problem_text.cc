#include "task/problem_text.h"

namespace hone {

std::string ProblemTextOf(const std::string& source) {
  size_t marker = source.find(kNotPartOfTheProblemMarker);
  if (marker == std::string::npos) return source;
  size_t line = source.rfind('\n', marker);
  return source.substr(0, line == std::string::npos ? 0 : line);
}

}  // namespace hone
