// Static lint over a candidate's source, run before it is built.
//
// It rejects sources that use things a kernel never needs and reward hacks
// do: files, processes, the network, the environment, host clocks, private
// streams, libraries that do the work, host inline assembly, code that runs
// at load time. The sandbox stops many of these at run time too; the lint
// rejects them before a build, with a reason that names the rule and the
// line, and it sees what no sandbox can (a cuBLAS call doing the work, a
// host timer read to detect the timed calls).
//
// It reads text only, with no preprocessor and no compiler: comments and
// literals are blanked, then whole identifiers are matched against each
// rule's names. It errs towards rejecting odd code (a macro that hides
// `__device__` makes asm count as host code), never towards passing it.
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

// Every rule, in a stable order (the order docs and the CLI list them in).
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

// Every finding, in source order (empty: clean), skipping rules in
// `options.allowed`. Never throws.
std::vector<LintFinding> LintSource(std::string_view source, const LintOptions& options);

// "rule 'file' at line 12 (fopen): <explanation>", the text of a `rejected:`
// verdict's reason.
std::string DescribeFinding(const LintFinding& f);

}  // namespace hone
