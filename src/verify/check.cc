#include "verify/check.h"

#include <array>
#include <utility>

namespace hone {
namespace {

constexpr std::string_view kSanitizerCheckPrefix = "sanitizer_";

constexpr std::array<std::pair<CheckKind, std::string_view>, 11> kCheckKindNames = {{
    {CheckKind::kLint, "lint"},
    {CheckKind::kCall, "call"},
    {CheckKind::kCorrect, "correct"},
    {CheckKind::kCorrectSecondRun, "correct_second_run"},
    {CheckKind::kDeterministic, "deterministic"},
    {CheckKind::kInputsUnchanged, "inputs_unchanged"},
    {CheckKind::kNoStrayWrites, "no_stray_writes"},
    {CheckKind::kPrecision, "precision"},
    {CheckKind::kTimedOutput, "timed_output"},
    {CheckKind::kNoWorkAfterReturn, "no_work_after_return"},
    {CheckKind::kReportedTime, "reported_time"},
}};

}  // namespace

std::string CheckName(const CheckId& id) {
  if (id.kind == CheckKind::kSanitizer) return std::string(kSanitizerCheckPrefix) + id.variant;
  if (id.kind == CheckKind::kOther) return id.variant;
  for (const auto& [kind, name] : kCheckKindNames)
    if (kind == id.kind) return std::string(name);
  return id.variant;
}

CheckId ParseCheckName(std::string_view name) {
  for (const auto& [kind, n] : kCheckKindNames)
    if (n == name) return {kind, ""};
  if (name.size() > kSanitizerCheckPrefix.size() &&
      name.substr(0, kSanitizerCheckPrefix.size()) == kSanitizerCheckPrefix)
    return {CheckKind::kSanitizer, std::string(name.substr(kSanitizerCheckPrefix.size()))};
  return {CheckKind::kOther, std::string(name)};
}

}  // namespace hone
