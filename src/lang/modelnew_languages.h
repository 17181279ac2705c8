// The languages of KernelBench ModelNew files (.py): C++/CUDA extensions
// built through torch.utils.cpp_extension.load_inline, and Triton. Both run
// through the compat shim's embedded Python (compat/compat_candidate.h) on a
// PyTorch task, and share the static rules hone reads from Python's syntax
// tree (python/hone_pylint.py, through the scan of compat/compat_scan.h).
#pragma once

#include "lang/language.h"

namespace hone {

Language LoadInlineLanguage();
Language TritonLanguage();

// The rules of a ModelNew file, as python/hone_pylint.py names them: the
// Python rule set of verify/lint_python.h as the languages' rules.
std::vector<LanguageRule> ModelNewRules();

// Words for a compat candidate that broke a sandbox rule with system call
// `nr` after it had loaded, about what a Python module does that makes that
// call; "" if none.
std::string ModelNewViolationHint(int nr);

}  // namespace hone
