// The front of the static lint: the finding's words, and the C++/CUDA rule
// set that LintSource has always meant. Each language's rules live in a
// file pair of their own (verify/lint_cxx.h for C++ and CUDA,
// verify/lint_python.h for ModelNew files); a language's descriptor names
// its rule set (lang/language.h: LanguageLint::rules and LanguageLint::check).
#include "verify/lint.h"

#include "verify/lint_cxx.h"

namespace hone {

const std::vector<LintRule>& LintRules() { return CxxLintRules(); }

bool IsLintRule(std::string_view name) {
  for (const LintRule& r : CxxLintRules())
    if (r.name == name) return true;
  return false;
}

std::vector<LintFinding> LintSource(std::string_view source, const LintOptions& options) {
  return LintCxxSource(source, options);
}

std::string DescribeFinding(const LintFinding& f) {
  return "rule '" + f.rule + "' at line " + std::to_string(f.line) + " (" + f.token +
         "): " + f.explanation;
}

}  // namespace hone
