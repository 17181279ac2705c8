// The source as the C++/CUDA lint's rules read it: build/cxx_tokens.h's
// tokens with literals gone and "::" and "->" joined (LintToken), beside the
// file's directives and every header name it mentions (Scan). The text
// helpers the rules share sit here too.
//
// A Scan views into the CxxSource it is made from, which must outlive it;
// tokens view into the source or into Scan::spellings. Pure functions over
// values the caller owns; any input text is fine.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "build/cxx_tokens.h"

namespace hone::cxx_lint {

bool StartsWith(std::string_view s, std::string_view prefix);
bool IsDigit(char c);
bool IsLower(char c);

// A preprocessing directive: '#' up to the end of its logical line.
struct Directive {
  size_t begin = 0, end = 0;  // offsets in CxxSource::text(); `end` is the newline
  std::string name;           // "include", "define", "if", ...
};

// A header name, or a string literal on a directive line (a macro that
// names a header: `#define H "cublas_v2.h"`).
struct HeaderName {
  size_t pos = 0;
  std::string name;
  bool angled = false;    // <name>, not "name"
  bool included = false;  // the operand of #include
};

// The source as the rules read it (build/cxx_tokens.h), and what they need
// of it besides its tokens.
struct Scan {
  const CxxSource& source;
  std::vector<Directive> directives;
  std::vector<HeaderName> headers;
  // Numbers with a digit separator, spelled with '_' for '\'' (the
  // spelling findings have always quoted in a header name built from
  // pieces); tokens view into them.
  std::deque<std::string> spellings;

  int Line(size_t pos) const { return source.LineAt(pos); }
};

// A token as the rules match it. Literals are gone: a string leaves `""`
// (so `extern "C"` stays visible), a character literal nothing. A
// punctuator is one character, except "::" and "->"; a digraph reads as the
// punctuator it stands for.
struct LintToken {
  std::string_view text;
  size_t pos = 0;  // offset in CxxSource::text()
  int line = 0;
  int directive = -1;  // index into Scan::directives; -1 outside any
  bool ident = false;
};

// The tokens of `scan.source` as the rules see them. The operand of an
// #include is matched as a header name, not as code, and the text of
// #error and #warning is prose: those lines leave no tokens. Every string
// on a directive line is kept as a possible header name.
std::vector<LintToken> LintTokens(Scan& scan);

// Whether token `i` exists and reads `text`.
bool Is(const std::vector<LintToken>& t, size_t i, std::string_view text);

// Each directive's tokens, [first, last).
std::vector<std::pair<size_t, size_t>> DirectiveTokens(const Scan& scan,
                                                       const std::vector<LintToken>& t);

}  // namespace hone::cxx_lint
