// The human summary of a verdict for a terminal.
#pragma once

#include <string>

#include "verify/verdict.h"

namespace hone {

// Valid UTF-8 whatever the verdict quotes (core/json_text.h: ValidUtf8).
std::string FormatVerdict(const Verdict& v, bool color);
// "12.3 us", "4.56 ms"
std::string FormatSeconds(double s);
// "memcheck: 0 errors; racecheck: 1 error (Race reported between ...)".
std::string DescribeSanitizer(const Verdict::Sanitizer& s);
// The profile's diagnosis, evidence, longest kernels and missing counters,
// indented lines.
std::string ProfileText(const ProfileReport& p);

}  // namespace hone
