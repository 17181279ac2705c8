// How the worker writes numbers into a verdict's reasons, checks and notes:
// a duration with the unit that suits it ("12.3 us", "4.567 ms", "2.10 s";
// core/wording's Seconds, which measure/ words sharing with too), any other
// value to six significant digits. The words are part of what users and
// LLMs read back, so every stage of an evaluation uses these two.
// Pure; thread-safe.
#pragma once

#include <string>

#include "core/wording.h"

namespace hone {

std::string Num(double v);

}  // namespace hone
