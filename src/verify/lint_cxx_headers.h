// The C++/CUDA lint's header rule: every #include of a header the rule
// book (lint_cxx_rules.h) forbids, and every header named where a later
// #include can use it (a string on a directive line, `#define H <dlfcn.h>`).
//
// Pure; thread-safe; any scan is fine.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "verify/lint_cxx_rules.h"
#include "verify/lint_cxx_scan.h"

namespace hone::cxx_lint {

// Appends a hit for each forbidden header the source names.
void MatchHeaders(const Scan& scan, const std::vector<LintToken>& t,
                  const std::vector<std::pair<size_t, size_t>>& ranges, std::vector<Hit>& hits);

}  // namespace hone::cxx_lint
