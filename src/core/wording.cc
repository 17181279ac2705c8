#include "core/wording.h"

#include <cstdio>

namespace hone {

namespace {

// Commas between the names, `last` before the final one.
std::string Joined(const std::vector<std::string>& names, const char* last) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? last : ", ") + names[i];
  return out;
}

}  // namespace

std::string OneOf(const std::vector<std::string>& names) { return Joined(names, " or "); }

std::string AllOf(const std::vector<std::string>& names) { return Joined(names, " and "); }

std::string Seconds(double s) {
  char buf[64];
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

std::string TenthsOfSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

std::string Gigabytes(int64_t bytes) {
  char buf[32];
  double gb = static_cast<double>(bytes) / 1e9;
  // A small problem under --memory-cap is megabytes: "0.00 GB" would say nothing.
  if (gb < 0.1)
    std::snprintf(buf, sizeof buf, "%.1f MB", gb * 1e3);
  else
    std::snprintf(buf, sizeof buf, gb < 10 ? "%.2f GB" : "%.1f GB", gb);
  return buf;
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace hone
