#include "run/reason_text.h"

#include <cstdio>

namespace hone {

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace hone
