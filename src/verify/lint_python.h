// The static rules for KernelBench ModelNew files (.py: C++/CUDA through
// load_inline, and Triton; lang/modelnew_languages.cc), as
// python/hone_pylint.py names them. The checks themselves read Python's own
// syntax tree, in Python, during the scan of the file
// (compat/compat_scan.h); this is their C++ side: the rule set, in the
// order `hone lint --rules` lists it, and how severe each rule is.
//
// Pure functions over constant data; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "verify/lint.h"

namespace hone {

struct PythonLintRule {
  LintRule rule;
  // A finding is only a warning in the verdict, not a rejection.
  bool warning = false;
  // Another rule's name that also allows this one ("library" allows
  // "torch-compute"); empty: none.
  std::string allowed_by{};
};

const std::vector<PythonLintRule>& PythonLintRules();

}  // namespace hone
