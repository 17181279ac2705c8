// A C++/CUDA tokenizer good enough to find the top-level structure of a
// source file (declarations, bodies, preprocessor lines, kernel launches):
// what cuda_split.h needs to take a load_inline CUDA source apart. It is not
// a preprocessor and not a parser: macros are not expanded, and
// `a<b>c` is three tokens whose meaning the caller decides.
//
// Comments and whitespace produce no tokens; every token keeps its byte range
// in the source, so callers cut and rewrite the original text. A preprocessor
// line (from `#` at the start of a line to its unescaped newline) is one
// token. Raw strings, character literals and digit separators are handled;
// an unterminated string or comment is an error, as the compiler would say.
//
// Pure functions, no state: safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace hone {

enum class TokenKind { kIdentifier, kNumber, kString, kPunct, kDirective };

struct Token {
  TokenKind kind;
  size_t begin = 0;  // byte offsets in the source: [begin, end)
  size_t end = 0;
  std::string_view text;  // a view into the tokenized source
  int line = 1;           // 1-based line of `begin`

  bool Is(std::string_view s) const { return text == s; }
  bool IsIdentifier() const { return kind == TokenKind::kIdentifier; }
};

// The tokens of `source`, which must outlive them. Status::Invalid with the
// line on an unterminated comment, string or character literal.
Result<std::vector<Token>> Tokenize(std::string_view source);

// The directive's name: "include" for `#  include <x>`, "" for a bare `#`.
std::string_view DirectiveName(const Token& directive);

// The header an #include names, without its quotes or angle brackets;
// "" when the directive is not an #include of a literal name.
std::string_view IncludedHeader(const Token& directive);

}  // namespace hone
