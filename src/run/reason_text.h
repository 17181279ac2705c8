// How the worker writes numbers into a verdict's reasons, checks and notes:
// a duration with the unit that suits it ("12.3 us", "4.567 ms", "2.10 s"),
// any other value to six significant digits. The words are part of what
// users and LLMs read back, so every stage of an evaluation uses these two.
// Pure; thread-safe.
#pragma once

#include <string>

namespace hone {

std::string Seconds(double s);
std::string Num(double v);

}  // namespace hone
