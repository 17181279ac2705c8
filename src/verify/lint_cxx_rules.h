// The C++/CUDA lint's rule book (the rule set behind verify/lint_cxx.h):
// every rule with its explanation, and what each one forbids, as data: the
// identifiers with how they must be used to count (NamePatterns), and the
// headers (HeaderPatterns). Adding a forbidden name or header is an entry
// here; how a use is recognised lives with its matcher (lint_cxx_names,
// lint_cxx_headers). A Hit is what every matcher reports.
//
// Constant tables built once; thread-safe; nothing here fails.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "verify/lint.h"

namespace hone::cxx_lint {

// Indices into RuleList(), in its order.
enum Rule : int {
  kHostThread,
  kProcess,
  kNetwork,
  kFile,
  kEnvironment,
  kDynamicLoading,
  kMemoryProtection,
  kInlineAsm,
  kTiming,
  kStream,
  kDeviceContext,
  kLibrary,
  kSignal,
  kLoadTimeCode,
  kSyscall,
  kSandbox,
  kIntrospection,
};

// Every rule, indexed by Rule, in a stable order (the order docs and the CLI
// list them in).
const std::vector<LintRule>& RuleList();

// How an identifier must be used to match a pattern. Distinctive names match
// anywhere; ambiguous short names (open, system) only where they can only be
// the C library's function.
enum class Use {
  kName,         // the identifier, except as a member (x.name, p->name)
  kCall,         // name( unqualified, or std::name / ::name anywhere
  kFreeCall,     // name( unqualified, or ::name (std::name is fine: std::bind)
  kPointer,      // name* unqualified, or std::name / ::name anywhere (FILE)
  kPrefix,       // identifiers that start with the text, except as members
  kLowerPrefix,  // the text followed by a lower-case letter (SYS_read, not SYS_SIZE)
  kNamespace,    // name:: or std::name (chrono, filesystem, torch)
  kStd,          // std::name, not std::name::member; bare name after `using namespace std`
  kBoost,        // boost::name
};

struct Pattern {
  std::string_view text;
  Use use;
  Rule rule;
};

// The forbidden identifiers, grouped by rule; static storage, so pointers
// into it stay valid.
std::span<const Pattern> NamePatterns();

// Headers that are only needed for a forbidden use. Matched against the
// included name's last component (kFile, kFilePrefix), any directory
// component (kDirectory) or its start (kPath).
enum class HeaderMatch { kFile, kFilePrefix, kDirectory, kPath };

struct HeaderPattern {
  std::string_view text;
  HeaderMatch how;
  Rule rule;
};

// The forbidden headers; static storage.
std::span<const HeaderPattern> HeaderPatterns();

// One rule matched at one place of the source.
struct Hit {
  size_t pos = 0;
  int line = 0;
  Rule rule = kHostThread;
  std::string token;
};

}  // namespace hone::cxx_lint
