#include "verify/verdict.h"

namespace hone {

std::string_view StatusName(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::kPassed:
      return "passed";
    case VerdictStatus::kIncorrect:
      return "incorrect";
    case VerdictStatus::kCompileError:
      return "compile_error";
    case VerdictStatus::kRuntimeError:
      return "runtime_error";
    case VerdictStatus::kTimeout:
      return "timeout";
    case VerdictStatus::kRejected:
      return "rejected";
    case VerdictStatus::kBusy:
      return "busy";
  }
  return "unknown";
}

int Verdict::checks_failed() const {
  int n = 0;
  for (const auto& c : checks) n += c.passed ? 0 : 1;
  return n;
}

}  // namespace hone
