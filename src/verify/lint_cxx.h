// The static rules for C++ and CUDA C++ sources (the native languages'
// rule set, lang/native_languages.cc), run before a candidate is built.
//
// They reject sources that use things a kernel never needs and reward hacks
// do: files, processes, the network, the environment, host clocks, private
// streams, libraries that do the work, host inline assembly, code that runs
// at load time. The sandbox stops many of these at run time too; the lint
// rejects them before a build, with a reason that names the rule and the
// line, and it sees what no sandbox can (a cuBLAS call doing the work, a
// host timer read to detect the timed calls).
//
// They read tokens only (build/cxx_tokens.h), with no preprocessor and no
// compiler: literals are skipped, then whole identifiers are matched
// against each rule's names. They err towards rejecting odd code (a macro
// that hides `__device__` makes asm count as host code), never towards
// passing it.
//
// The rule book (what each rule forbids) is verify/lint_cxx_rules.h; the
// rules read the source through verify/lint_cxx_scan.h; names, headers and
// the rules device code changes (inline asm, introspection) are matched in
// lint_cxx_names, lint_cxx_headers and lint_cxx_device_code; load-time
// attributes and the order of the findings here.
//
// Pure functions; thread-safe; any input text is fine.
#pragma once

#include <string_view>
#include <vector>

#include "verify/lint.h"

namespace hone {

// Every rule, in a stable order (the order docs and the CLI list them in).
const std::vector<LintRule>& CxxLintRules();

// Every finding, in source order (empty: clean), skipping rules in
// `options.allowed`. `options.cuda`: a .cu source, whose inline PTX asm in
// device code is allowed. Never throws.
std::vector<LintFinding> LintCxxSource(std::string_view source, const LintOptions& options);

}  // namespace hone
