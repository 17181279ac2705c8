#include "core/status.h"

namespace hone {

void CheckFailed(const char* file, int line, const char* expr, const std::string& msg) {
  std::fprintf(stderr, "hone: internal error at %s:%d: check '%s' failed: %s\n", file, line, expr,
               msg.c_str());
  std::abort();
}

}  // namespace hone
