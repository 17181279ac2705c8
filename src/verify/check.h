// One check an evaluation ran: what it was (a kind, and for the sanitizer
// the tool), where (the case, seed and distribution), whether it passed, and
// the detail a person or a model acts on. Code that picks checks (the
// sanitizer's, the lint's, the correctness check's) asks for the kind; the
// name ("correct", "sanitizer_memcheck") is what the JSON, the store and the
// feedback show, and is rendered from the kind in one place (CheckName).
// A check stored under a name no kind has reads back as CheckKind::kOther
// with its name kept. Plain values; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace hone {

enum class CheckKind {
  kOther,              // a name no kind has, kept as read (CheckId::variant)
  kLint,               // the static rules
  kCall,               // a call of the candidate crashed, stalled or failed
  kCorrect,            // outputs against the reference
  kCorrectSecondRun,   // outputs of a second run on the same inputs
  kDeterministic,      // both runs bitwise alike (or within tolerance, noted)
  kInputsUnchanged,    // the inputs after the call
  kNoStrayWrites,      // the arena's canaries
  kPrecision,          // against the float64 reference
  kTimedOutput,        // a timed call's outputs, re-checked
  kNoWorkAfterReturn,  // nothing left running after the call returned
  kReportedTime,       // the reported time against the worker's clock
  kSanitizer,          // compute-sanitizer; CheckId::variant names the tool
};

struct CheckId {
  CheckKind kind = CheckKind::kOther;
  // kSanitizer: the tool ("memcheck", "racecheck", "initcheck"); kOther: the
  // whole name as read; empty otherwise.
  std::string variant;
  bool operator==(const CheckId&) const = default;
};

// "correct", "sanitizer_memcheck", or a kOther check's name as read.
std::string CheckName(const CheckId& id);
// The kind of a stored name; a name no kind has is kOther with the name kept.
CheckId ParseCheckName(std::string_view name);

struct Check {
  CheckId id;
  std::string where;  // "N=4096 seed=1 dist=normal(0.5, 3)"
  bool passed = true;
  std::string detail;
  CheckKind kind() const { return id.kind; }
  std::string name() const { return CheckName(id); }
  bool operator==(const Check&) const = default;
};

}  // namespace hone
