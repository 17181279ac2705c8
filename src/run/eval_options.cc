#include "run/eval_options.h"

#include <unistd.h>

#include <algorithm>

namespace hone {

std::string FlushModeName(FlushMode m) {
  switch (m) {
    case FlushMode::kLlc:
      return "llc";
    case FlushMode::kLines:
      return "lines";
    case FlushMode::kNone:
      return "none";
  }
  return "unknown";
}

std::optional<FlushMode> ParseFlushMode(const std::string& s) {
  if (s == "llc") return FlushMode::kLlc;
  if (s == "lines") return FlushMode::kLines;
  if (s == "none") return FlushMode::kNone;
  return std::nullopt;
}

size_t DefaultMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  size_t ram =
      pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : (8ull << 30);
  return std::min<size_t>(ram / 8, 2ull << 30);
}

}  // namespace hone
