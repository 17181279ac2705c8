// The C++/CUDA lint's rules that device code changes: inline assembly is
// fine in __device__ and __global__ code of a .cu source (PTX) and rejected
// in host code, and the introspection rule is about the host process, so
// device code is exempt from it. Both need to know which tokens are device
// code, which is decided here by walking the braces and the
// preprocessor's #if branches, with the file's macros expanded where they
// can be trusted. When they cannot, nothing is device code: the rules err
// towards rejecting.
//
// Pure; thread-safe; any scan is fine.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "verify/lint_cxx_rules.h"
#include "verify/lint_cxx_scan.h"

namespace hone::cxx_lint {

// Host inline assembly: asm outside device code, and uses of macros that
// hold asm (a macro is judged where it is used, since that is where its
// asm lands).
void MatchAsm(const Scan& scan, const std::vector<LintToken>& t,
              const std::vector<std::pair<size_t, size_t>>& ranges, bool cuda,
              std::vector<Hit>& hits);

// A __device__ function named read or write is the kernel's own business:
// introspection is about the host process, so device code is exempt.
void DropDeviceIntrospection(const Scan& scan, const std::vector<LintToken>& t,
                             const std::vector<std::pair<size_t, size_t>>& ranges,
                             std::vector<Hit>& hits);

}  // namespace hone::cxx_lint
