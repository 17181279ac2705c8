// The C++/CUDA lint's name rules: every identifier used the way a
// pattern of the rule book (lint_cxx_rules.h) says, as a hit. What counts
// as a use depends on the identifier's surroundings: a member (x.open) is
// not the C library's open, std::thread is a thread where thread is not,
// and what the file itself says (namespace aliases of std, `using namespace
// std`, macros) changes what a qualifier means.
//
// Pure; thread-safe; any token stream is fine.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "verify/lint_cxx_rules.h"
#include "verify/lint_cxx_scan.h"

namespace hone::cxx_lint {

// Appends a hit for each identifier that uses a forbidden name, except the
// parameters of function-like macros.
void MatchNames(const Scan& scan, const std::vector<LintToken>& t,
                const std::vector<std::pair<size_t, size_t>>& ranges, std::vector<Hit>& hits);

}  // namespace hone::cxx_lint
