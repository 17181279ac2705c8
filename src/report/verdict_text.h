// The human summary of a verdict for a terminal.
#pragma once

#include <string>

#include "verify/verdict.h"

namespace hone {

std::string FormatVerdict(const Verdict& v, bool color);
// "12.3 us", "4.56 ms"
std::string FormatSeconds(double s);
// "memcheck: 0 errors; racecheck: 1 error (Race reported between ...)".
std::string DescribeSanitizer(const Verdict::Sanitizer& s);

}  // namespace hone
