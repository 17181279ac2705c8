// The part of a PyTorch problem file that is the problem. A file hone
// generates from another task format (format/flashinfer_codegen.h) carries
// the format's helpers after a marker line ending in
// kNotPartOfTheProblemMarker; what a person or an LLM is shown of the
// problem stops above that line. Pure functions, any thread.
#pragma once

#include <string>
#include <string_view>

namespace hone {

// How the marker line of a generated problem ends.
inline constexpr std::string_view kNotPartOfTheProblemMarker = "not part of the problem ----";

// `source` up to the line holding the marker (without it); all of `source`
// when it has none.
std::string ProblemTextOf(const std::string& source);

}  // namespace hone
