// A verdict in the few lines an agent's context can afford: status and
// reason, speedup and speed-of-light percentage, what limits the kernel,
// and for a failure the one thing to fix (the compiler's first errors, the
// first failed check). The whole verdict travels beside it as structured
// content; this is what a model reads.
//
// Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "verify/verdict.h"

namespace hone::mcp {

std::string VerdictDigest(const Verdict& v);
// What limits the kernel, in one line: the profiler's diagnosis when the
// verdict has one, else what its speed-of-light percentage says.
std::string LimitLine(const Verdict& v);
// The summary fields a tool's structured content leads with (status,
// reason, speedup, sol_percent, limits), the rest being the verdict itself.
nlohmann::json VerdictSummaryJson(const Verdict& v);

}  // namespace hone::mcp
