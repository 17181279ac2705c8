#include "build/cxx_tokens.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace hone {

// One left-to-right pass over the spliced text. Where it reads a character
// differently from a strict compiler (an unterminated literal), it errs
// towards taking less as a literal: the lint must see code, not skip it.
class CxxLexer {
 public:
  CxxLexer(std::string_view source, CxxSource& out) : out_(out) { Splice(source); }

  void Run() {
    while (i_ < n_) Step();
    EndLine();
  }

 private:
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static bool IsIdentStart(char c) {
    const auto u = static_cast<unsigned char>(c);
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || u >= 0x80;
  }
  static bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }
  // Blank space other than a newline; NUL too (GCC ignores it).
  static bool IsBlank(char c) {
    return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || c == '\0';
  }
  static bool IsRawDelimiterChar(char c) {
    return c > ' ' && c < 0x7f && c != '(' && c != ')' && c != '\\';
  }
  static bool IsIncludeName(std::string_view name) {
    return name == "include" || name == "include_next" || name == "import";
  }

  char At(size_t i) const { return i < n_ ? s_[i] : '\0'; }

  // Translation phase 2 as GCC does it: a backslash, optional blanks and a
  // newline vanish. Keeps each character's line and source offset.
  void Splice(std::string_view src) {
    std::string& text = out_.text_;
    text.reserve(src.size());
    out_.line_.reserve(src.size() + 1);
    std::vector<size_t> offset;
    offset.reserve(src.size() + 1);
    bool spliced = false;
    int line = 1;
    for (size_t i = 0; i < src.size(); ++i) {
      if (src[i] == '\\') {
        size_t j = i + 1;
        while (j < src.size() && IsBlank(src[j]) && src[j] != '\0') ++j;
        if (j < src.size() && src[j] == '\n') {
          ++line;
          i = j;
          spliced = true;
          continue;
        }
      }
      text.push_back(src[i]);
      out_.line_.push_back(line);
      offset.push_back(i);
      if (src[i] == '\n') ++line;
    }
    out_.line_.push_back(line);
    offset.push_back(src.size());
    if (spliced) out_.offset_ = std::move(offset);
    s_ = text;
    n_ = text.size();
  }

  // Whether the character at `k` follows a line splice.
  bool AfterSplice(size_t k) const {
    return out_.SourceOffset(k) != (k == 0 ? 0 : out_.SourceOffset(k - 1) + 1);
  }

  void Problem(const char* what, size_t at) {
    if (out_.status_.ok())
      out_.status_ = Status::Invalid("line " + std::to_string(out_.line_[at]) + ": " + what);
  }

  void Push(TokenKind kind, size_t begin, size_t end, std::string_view text = {},
            std::string_view body = {}) {
    Token t;
    t.kind = kind;
    t.begin = begin;
    t.end = end;
    t.text = text.empty() ? s_.substr(begin, end - begin) : text;
    t.line = out_.line_[begin];
    t.body = body;
    t.directive = directive_open_ ? static_cast<int>(out_.directives_.size()) - 1 : -1;
    // The token right after a directive's `#` names it, if it is an identifier.
    if (t.directive >= 0 && out_.tokens_.size() == out_.directives_.back().first + 1 &&
        kind == TokenKind::kIdentifier) {
      out_.directives_.back().name = t.text;
      header_next_ = IsIncludeName(t.text);
    } else {
      header_next_ = false;
    }
    out_.tokens_.push_back(t);
    i_ = end;
  }

  void Step() {
    const char c = s_[i_];
    if (c == '\n') {
      EndLine();
      ++i_;
      return;
    }
    if (IsBlank(c)) {
      ++i_;
      return;
    }
    if (c == '/' && At(i_ + 1) == '/') {
      while (i_ < n_ && s_[i_] != '\n') ++i_;
      return;
    }
    // A comment is blank space: it neither starts nor ends a line or directive.
    if (c == '/' && At(i_ + 1) == '*') {
      const size_t close = s_.find("*/", i_ + 2);
      if (close == std::string_view::npos) Problem("unterminated comment", i_);
      i_ = close == std::string_view::npos ? n_ : close + 2;
      return;
    }
    const bool hash = (c == '#' && At(i_ + 1) != '#') ||
                      (c == '%' && At(i_ + 1) == ':' && !(At(i_ + 2) == '%' && At(i_ + 3) == ':'));
    if (line_start_ && hash) return StartDirective();
    line_start_ = false;
    if (IsDigit(c) || (c == '.' && IsDigit(At(i_ + 1))))
      return Push(TokenKind::kNumber, i_, NumberEnd());
    if (IsIdentStart(c)) return Identifier();
    if (c == '"') return String(i_, i_);
    if (c == '\'') return Character(i_, i_);
    Punctuator();
  }

  // A newline outside comments and literals ends a directive.
  void EndLine() {
    if (directive_open_) {
      out_.directives_.back().end = i_;
      out_.directives_.back().last = out_.tokens_.size();
      directive_open_ = false;
    }
    line_start_ = true;
    header_next_ = false;
  }

  void StartDirective() {
    CxxDirective d;
    d.begin = i_;
    d.end = n_;
    d.first = out_.tokens_.size();
    out_.directives_.push_back(d);
    directive_open_ = true;
    line_start_ = false;
    Push(TokenKind::kPunct, i_, i_ + (s_[i_] == '%' ? 2 : 1), "#");
  }

  // Where the pp-number starting here ends (digit separators and exponent
  // signs included: "1'000", "1e+5", "0x1p-3").
  size_t NumberEnd() const {
    size_t j = i_ + 1;
    while (j < n_) {
      const char c = s_[j], prev = s_[j - 1];
      const bool exp = prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P';
      if ((c == '+' || c == '-') && exp) {
        ++j;
      } else if (c == '\'' && j + 1 < n_ && IsIdentChar(s_[j + 1])) {
        j += 2;
      } else if (IsIdentChar(c) || c == '.') {
        ++j;
      } else {
        break;
      }
    }
    return j;
  }

  void Identifier() {
    size_t j = i_;
    while (j < n_ && IsIdentChar(s_[j])) ++j;
    const std::string_view id = s_.substr(i_, j - i_);
    const char next = At(j);
    if (next == '"' && (id == "R" || id == "u8R" || id == "uR" || id == "UR" || id == "LR"))
      return RawString(i_, j);
    if ((next == '"' || next == '\'') && (id == "u8" || id == "u" || id == "U" || id == "L"))
      return next == '"' ? String(i_, j) : Character(i_, j);
    Push(TokenKind::kIdentifier, i_, j);
  }

  // From the quote at `quote` to the closing `q`, or unterminated to the
  // end of the line.
  size_t QuotedEnd(size_t quote, char q) const {
    size_t j = quote + 1;
    while (j < n_ && s_[j] != q && s_[j] != '\n') j += (s_[j] == '\\' && j + 1 < n_) ? 2 : 1;
    return std::min(j, n_);
  }

  // "..." with an optional prefix from `start`.
  void String(size_t start, size_t quote) {
    const size_t j = QuotedEnd(quote, '"');
    const bool closed = j < n_ && s_[j] == '"';
    if (!closed) Problem("unterminated string", start);
    Push(TokenKind::kString, start, closed ? j + 1 : j, {}, s_.substr(quote + 1, j - quote - 1));
  }

  void Character(size_t start, size_t quote) {
    const size_t j = QuotedEnd(quote, '\'');
    const bool closed = j < n_ && s_[j] == '\'';
    if (!closed) Problem("unterminated character literal", start);
    Push(TokenKind::kCharacter, start, closed ? j + 1 : j, {}, s_.substr(quote + 1, j - quote - 1));
  }

  // R"delim(...)delim". A delimiter that is not one makes it a plain
  // string; a splice inside the closing delimiter does not end it (the
  // compiler undoes splices in raw strings).
  void RawString(size_t start, size_t quote) {
    size_t j = quote + 1;
    while (j < n_ && j - quote <= 17 && IsRawDelimiterChar(s_[j])) ++j;
    if (j >= n_ || s_[j] != '(' || j - quote - 1 > 16) return String(start, quote);
    const std::string close = ")" + std::string(s_.substr(quote + 1, j - quote - 1)) + "\"";
    size_t body_end = n_, end = n_;
    for (size_t k = s_.find(close, j + 1); k != std::string_view::npos; k = s_.find(close, k + 1)) {
      bool spliced = false;
      for (size_t m = k + 1; m < k + close.size() && !spliced; ++m) spliced = AfterSplice(m);
      if (!spliced) {
        body_end = k;
        end = k + close.size();
        break;
      }
    }
    if (end == n_ && body_end == n_) Problem("unterminated raw string", start);
    Push(TokenKind::kString, start, end, {}, s_.substr(j + 1, body_end - j - 1));
  }

  void HeaderName() {
    size_t j = i_ + 1;
    while (j < n_ && s_[j] != '>' && s_[j] != '\n') ++j;
    const std::string_view name = s_.substr(i_ + 1, j - i_ - 1);
    Push(TokenKind::kHeaderName, i_, j < n_ && s_[j] == '>' ? j + 1 : j, {}, name);
  }

  // The digraph starting at `k`, if one does: its punctuator and length.
  // "<::" is '<' then "::" unless followed by ':' or '>' ([lex.pptoken]).
  std::pair<std::string_view, size_t> Digraph(size_t k) const {
    const char c = At(k), d = At(k + 1);
    if (c == '<' && d == '%') return {"{", 2};
    if (c == '%' && d == '>') return {"}", 2};
    if (c == '%' && d == ':' && At(k + 2) == '%' && At(k + 3) == ':') return {"##", 4};
    if (c == '%' && d == ':') return {"#", 2};
    if (c == ':' && d == '>') return {"]", 2};
    if (c == '<' && d == ':') {
      const bool lone = At(k + 2) == ':' && At(k + 3) != ':' && At(k + 3) != '>';
      if (!lone) return {"[", 2};
    }
    return {{}, 0};
  }

  // The longest punctuator, except that a digraph is read wherever it
  // starts (`<<%` is '<' then '{'), so braces are never hidden.
  void Punctuator() {
    if (header_next_ && s_[i_] == '<') return HeaderName();
    if (auto [text, size] = Digraph(i_); size > 0)
      return Push(TokenKind::kPunct, i_, i_ + size, text);
    // Longest first: a launch's `<<<` must not lex as `<<` then `<`.
    static constexpr std::array<std::string_view, 27> kPuncts = {
        "<<<", ">>>", "...", "<<=", ">>=", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=",
        "==",  "!=",  "&&",  "||",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "##"};
    for (std::string_view p : kPuncts) {
      if (s_.substr(i_, p.size()) != p) continue;
      bool cut = false;
      for (size_t k = 1; k < p.size() && !cut; ++k) cut = Digraph(i_ + k).second > 0;
      if (!cut) return Push(TokenKind::kPunct, i_, i_ + p.size());
    }
    Push(TokenKind::kPunct, i_, i_ + 1);
  }

  CxxSource& out_;
  std::string_view s_;
  size_t n_ = 0;
  size_t i_ = 0;
  bool line_start_ = true;
  bool directive_open_ = false;
  bool header_next_ = false;  // the next token is an #include's operand
};

CxxSource::CxxSource(std::string_view source) { CxxLexer(source, *this).Run(); }

Result<std::vector<Token>> Tokenize(std::string_view source) {
  const CxxSource src(source);
  if (!src.status().ok()) return src.status();
  const std::vector<Token>& in = src.tokens();
  std::vector<Token> out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    Token t = in[i];
    t.body = {};
    t.directive = -1;
    if (in[i].directive >= 0) {
      // The whole line, from its `#` (the line's first token) on.
      const CxxDirective& d = src.directives()[in[i].directive];
      t.kind = TokenKind::kDirective;
      t.begin = src.SourceOffset(d.begin);
      t.end = src.SourceOffset(d.end);
      i = d.last - 1;
    } else {
      if (t.kind == TokenKind::kCharacter) t.kind = TokenKind::kString;
      t.begin = src.SourceOffset(t.begin);
      t.end = src.SourceOffset(t.end - 1) + 1;
      // A digraph keeps the punctuator it stands for.
      if (t.text.data() >= src.text().data() &&
          t.text.data() < src.text().data() + src.text().size())
        t.text = {};
    }
    if (t.text.empty() || t.kind == TokenKind::kDirective)
      t.text = source.substr(t.begin, t.end - t.begin);
    out.push_back(t);
  }
  return out;
}

namespace {

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string_view DirectiveName(const Token& directive) {
  std::string_view s = TrimBlanks(directive.text.substr(1));
  size_t n = 0;
  while (n < s.size() && IsNameChar(s[n])) ++n;
  return s.substr(0, n);
}

std::string_view IncludedHeader(const Token& directive) {
  if (DirectiveName(directive) != "include") return {};
  std::string_view s = TrimBlanks(directive.text.substr(1));
  s = TrimBlanks(s.substr(std::string_view("include").size()));
  if (s.empty() || (s.front() != '<' && s.front() != '"')) return {};
  char close = s.front() == '<' ? '>' : '"';
  size_t end = s.find(close, 1);
  if (end == std::string_view::npos) return {};
  return s.substr(1, end - 1);
}

}  // namespace hone
