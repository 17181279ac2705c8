#include "build/cxx_tokens.h"

#include <array>
#include <cctype>

namespace hone {

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Longest first: a launch's `<<<` must not lex as `<<` then `<`.
constexpr std::array<std::string_view, 27> kPuncts = {
    "<<<", ">>>", "...", "<<=", ">>=", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=",
    "==",  "!=",  "&&",  "||",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "##"};

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  Result<std::vector<Token>> Run() {
    while (true) {
      HONE_RETURN_IF_ERROR(SkipSpaceAndComments());
      if (pos_ >= src_.size()) return std::move(tokens_);
      HONE_RETURN_IF_ERROR(Next());
    }
  }

 private:
  char At(size_t i) const { return i < src_.size() ? src_[i] : '\0'; }

  void Advance(size_t to) {
    for (; pos_ < to && pos_ < src_.size(); ++pos_) {
      if (src_[pos_] == '\n') {
        ++line_;
        line_start_ = true;
      } else if (!std::isspace(static_cast<unsigned char>(src_[pos_]))) {
        line_start_ = false;
      }
    }
  }

  Status Error(const std::string& what, int line) const {
    return Status::Invalid("line " + std::to_string(line) + ": " + what);
  }

  Status SkipSpaceAndComments() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        Advance(pos_ + 1);
      } else if (c == '/' && At(pos_ + 1) == '/') {
        size_t nl = src_.find('\n', pos_);
        Advance(nl == std::string_view::npos ? src_.size() : nl);
      } else if (c == '/' && At(pos_ + 1) == '*') {
        size_t close = src_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) return Error("unterminated comment", line_);
        // A comment is whitespace: `/* x */ #define` still starts a directive.
        bool start =
            line_start_ || src_.substr(pos_, close - pos_).find('\n') != std::string_view::npos;
        Advance(close + 2);
        line_start_ = start;
      } else {
        break;
      }
    }
    return Status::Ok();
  }

  void Push(TokenKind kind, size_t end) {
    Token t{kind, pos_, end, src_.substr(pos_, end - pos_), line_};
    tokens_.push_back(t);
    Advance(end);
  }

  Status Next() {
    char c = src_[pos_];
    if (c == '#' && line_start_) return Directive();
    if (IsIdentStart(c)) return IdentifierOrPrefixedLiteral();
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && std::isdigit(static_cast<unsigned char>(At(pos_ + 1))))) {
      Push(TokenKind::kNumber, NumberEnd(pos_));
      return Status::Ok();
    }
    if (c == '"' || c == '\'') return Quoted(pos_);
    for (std::string_view p : kPuncts) {
      if (src_.substr(pos_, p.size()) == p) {
        Push(TokenKind::kPunct, pos_ + p.size());
        return Status::Ok();
      }
    }
    Push(TokenKind::kPunct, pos_ + 1);
    return Status::Ok();
  }

  // To the first newline not escaped by a backslash; comments inside are
  // part of the line (a `/* */` may even continue it).
  Status Directive() {
    size_t i = pos_;
    while (i < src_.size() && src_[i] != '\n') {
      if (src_[i] == '\\' && At(i + 1) == '\n') {
        i += 2;
      } else if (src_[i] == '/' && At(i + 1) == '*') {
        size_t close = src_.find("*/", i + 2);
        if (close == std::string_view::npos) return Error("unterminated comment", line_);
        i = close + 2;
      } else {
        ++i;
      }
    }
    Push(TokenKind::kDirective, i);
    return Status::Ok();
  }

  size_t NumberEnd(size_t i) const {
    while (i < src_.size()) {
      char c = src_[i];
      bool exponent_sign =
          (c == '+' || c == '-') && i > 0 &&
          (src_[i - 1] == 'e' || src_[i - 1] == 'E' || src_[i - 1] == 'p' || src_[i - 1] == 'P');
      if (!IsIdentChar(c) && c != '.' && c != '\'' && !exponent_sign) break;
      ++i;
    }
    return i;
  }

  Status IdentifierOrPrefixedLiteral() {
    size_t i = pos_;
    while (i < src_.size() && IsIdentChar(src_[i])) ++i;
    std::string_view word = src_.substr(pos_, i - pos_);
    char next = At(i);
    bool raw = !word.empty() && word.back() == 'R' &&
               (word == "R" || word == "LR" || word == "uR" || word == "UR" || word == "u8R");
    if (raw && next == '"') return RawString(i);
    if ((word == "L" || word == "u" || word == "U" || word == "u8") &&
        (next == '"' || next == '\''))
      return Quoted(i);
    Push(TokenKind::kIdentifier, i);
    return Status::Ok();
  }

  // A "..." or '...' literal whose opening quote is at `quote`.
  Status Quoted(size_t quote) {
    char q = src_[quote];
    size_t i = quote + 1;
    while (i < src_.size() && src_[i] != q) {
      if (src_[i] == '\n') break;
      i += src_[i] == '\\' ? 2 : 1;
    }
    if (i >= src_.size() || src_[i] != q)
      return Error(q == '"' ? "unterminated string" : "unterminated character literal", line_);
    Push(TokenKind::kString, i + 1);
    return Status::Ok();
  }

  // R"delim( ... )delim"; `quote` is the opening quote.
  Status RawString(size_t quote) {
    size_t open = src_.find('(', quote);
    if (open == std::string_view::npos) return Error("malformed raw string", line_);
    std::string close = ")" + std::string(src_.substr(quote + 1, open - quote - 1)) + "\"";
    size_t end = src_.find(close, open);
    if (end == std::string_view::npos) return Error("unterminated raw string", line_);
    Push(TokenKind::kString, end + close.size());
    return Status::Ok();
  }

  std::string_view src_;
  size_t pos_ = 0;
  int line_ = 1;
  bool line_start_ = true;
  std::vector<Token> tokens_;
};

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

}  // namespace

Result<std::vector<Token>> Tokenize(std::string_view source) { return Lexer(source).Run(); }

std::string_view DirectiveName(const Token& directive) {
  std::string_view s = TrimLeft(directive.text.substr(1));
  size_t n = 0;
  while (n < s.size() && IsIdentChar(s[n])) ++n;
  return s.substr(0, n);
}

std::string_view IncludedHeader(const Token& directive) {
  if (DirectiveName(directive) != "include") return {};
  std::string_view s = TrimLeft(directive.text.substr(1));
  s = TrimLeft(s.substr(std::string_view("include").size()));
  if (s.empty() || (s.front() != '<' && s.front() != '"')) return {};
  char close = s.front() == '<' ? '>' : '"';
  size_t end = s.find(close, 1);
  if (end == std::string_view::npos) return {};
  return s.substr(1, end - 1);
}

}  // namespace hone
