// Static lint over a candidate's source, run before it is built: the
// findings' shape and words, and the entry its callers have always used.
//
// Each kind of source has its rule set in a file pair of its own, which its
// language's descriptor names (lang/language.h: LanguageLint::rules and
// LanguageLint::check): C++ and CUDA C++ in verify/lint_cxx.h (names matched on
// the tokens of build/cxx_tokens.h), KernelBench ModelNew files in
// verify/lint_python.h (checks that run in Python on the file's syntax
// tree, through compat/compat_scan.h). LintRules and LintSource here are
// the C++/CUDA rule set's.
//
// Pure functions; thread-safe; any input text is fine.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace hone {

struct LintRule {
  std::string name;         // kebab-case, e.g. "file"
  std::string explanation;  // one line: what it forbids and why
};

// Every C++/CUDA rule (CxxLintRules), in a stable order (the order docs and
// the CLI list them in).
const std::vector<LintRule>& LintRules();

// True when `name` is one of LintRules()' names.
bool IsLintRule(std::string_view name);

struct LintFinding {
  std::string rule;         // LintRule::name
  int line = 0;             // 1-based line in the source
  std::string token;        // what matched, e.g. "fopen" or "#include <cublas_v2.h>"
  std::string explanation;  // the rule's explanation
};

struct LintOptions {
  bool cuda = false;              // a .cu source: inline PTX asm in device code is allowed
  std::set<std::string> allowed;  // rule names the task or the user allows (e.g. "library")
};

// Every C++/CUDA finding (LintCxxSource), in source order (empty: clean),
// skipping rules in `options.allowed`. Never throws.
std::vector<LintFinding> LintSource(std::string_view source, const LintOptions& options);

// "rule 'file' at line 12 (fopen): <explanation>", the text of a `rejected:`
// verdict's reason.
std::string DescribeFinding(const LintFinding& f);

}  // namespace hone
