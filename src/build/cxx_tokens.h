// hone's one C++/CUDA tokenizer: the preprocessing tokens of a source, for
// the tools that read C++ without a compiler (cuda_split.h takes a
// load_inline CUDA source apart; verify/lint_cxx.h matches its rules
// against names). It is not a preprocessor and not a parser: macros are not
// expanded, and `a<b>c` is three tokens whose meaning the caller decides.
//
// It follows translation phases 1 to 3 as GCC does, near enough: a
// backslash, optional blanks and a newline vanish (a line splice, so
// `fo\<newline>pen` is one identifier), except that a raw string's closing
// delimiter cannot be made by one; comments and blank space produce no
// tokens; a preprocessor line runs from a `#` that starts a line (a comment
// is blank space, so `/* x */ #define` starts one) to the newline that ends
// it. Raw strings, prefixed string and character literals, digit separators
// (1'000 is one number), header names after #include, digraphs (`<%` is
// `{`) and identifiers with `$` or non-ASCII bytes are handled.
//
// CxxSource is the full reading, tolerant of any text: an unterminated
// comment or literal ends at the end of its line (a literal) or of the
// source (a comment, a raw string), and the first such problem is kept as
// a Status. Tokenize() is the strict, coarse view cuda_split.h works on.
//
// Pure functions and immutable values: safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace hone {

enum class TokenKind {
  kIdentifier,
  kNumber,      // a pp-number: 1'000, 0x1p-3, 1.5e+3f
  kString,      // "...", with its prefix (u8R"x(...)x"); Tokenize: character literals too
  kCharacter,   // '...', with its prefix (CxxSource only)
  kHeaderName,  // <...> as the operand of #include (CxxSource only)
  kPunct,       // the longest punctuator, CUDA's <<< and >>> included
  kDirective,   // a whole preprocessor line (Tokenize only)
};

struct Token {
  TokenKind kind = TokenKind::kPunct;
  // Byte offsets [begin, end): in the source for Tokenize(), in
  // CxxSource::text() (the source after line splicing) for CxxSource.
  size_t begin = 0;
  size_t end = 0;
  // The spelling, a view into the text the offsets index; a digraph's is
  // the punctuator it stands for ("{" for `<%`), a static string.
  std::string_view text;
  int line = 1;  // 1-based line of `begin` in the source
  // A string's or character literal's contents between its quotes (a raw
  // string's between its delimiters), a header name's between < and >;
  // empty otherwise. CxxSource only.
  std::string_view body;
  int directive = -1;  // CxxSource: index into directives() of the line holding it; -1 outside

  bool Is(std::string_view s) const { return text == s; }
  bool IsIdentifier() const { return kind == TokenKind::kIdentifier; }
};

// A preprocessor line of a CxxSource.
struct CxxDirective {
  size_t begin = 0;       // offset of its `#` (or `%:`) in CxxSource::text()
  size_t end = 0;         // offset of the newline that ends it, or the text's size
  std::string_view name;  // "include", "define", "if"...; "" for a bare `#` or `# 1 "x"`
  size_t first = 0;       // its tokens are tokens()[first, last), the `#` first
  size_t last = 0;
};

// The tokens of one source, after line splicing. Owns its spliced copy and
// the tokens view into it, so it is neither copied nor moved. Never fails;
// status() says whether a compiler would have rejected the text as
// unterminated.
class CxxSource {
 public:
  explicit CxxSource(std::string_view source);
  CxxSource(const CxxSource&) = delete;
  CxxSource& operator=(const CxxSource&) = delete;

  const std::vector<Token>& tokens() const { return tokens_; }
  const std::vector<CxxDirective>& directives() const { return directives_; }
  // The source with its line splices removed.
  const std::string& text() const { return text_; }
  // The 1-based line in the source of offset `pos` of text() (its size too).
  int LineAt(size_t pos) const { return line_[pos]; }
  // The offset in the source of offset `pos` of text() (its size too).
  size_t SourceOffset(size_t pos) const { return offset_.empty() ? pos : offset_[pos]; }
  // Ok, or Status::Invalid "line N: unterminated string" for the first
  // comment, string, character literal or raw string left open.
  const Status& status() const { return status_; }

 private:
  friend class CxxLexer;
  std::string text_;
  std::vector<int> line_;       // per offset of text_, plus one for its end
  std::vector<size_t> offset_;  // the same for source offsets; empty when nothing was spliced
  std::vector<Token> tokens_;
  std::vector<CxxDirective> directives_;
  Status status_;
};

// The coarse, strict view of CxxSource that cuda_split.h walks: a
// preprocessor line is one kDirective token (its text the source's, line
// splices and comments included), character literals are kString, offsets
// and text are the source's (which must outlive the tokens). Status::Invalid
// with the line on an unterminated comment, string, character literal or
// raw string, as the compiler would say.
Result<std::vector<Token>> Tokenize(std::string_view source);

// The directive's name: "include" for `#  include <x>`, "" for a bare `#`.
std::string_view DirectiveName(const Token& directive);

// The header an #include names, without its quotes or angle brackets;
// "" when the directive is not an #include of a literal name.
std::string_view IncludedHeader(const Token& directive);

}  // namespace hone
