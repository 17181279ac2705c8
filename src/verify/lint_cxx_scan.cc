#include "verify/lint_cxx_scan.h"

#include <algorithm>

namespace hone::cxx_lint {
namespace {

bool IsIncludeDirective(std::string_view name) {
  return name == "include" || name == "include_next" || name == "import";
}

}  // namespace

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

std::vector<LintToken> LintTokens(Scan& scan) {
  const CxxSource& src = scan.source;
  for (const CxxDirective& d : src.directives())
    scan.directives.push_back({d.begin, d.end, std::string(d.name)});
  std::vector<LintToken> out;
  const std::vector<Token>& tokens = src.tokens();
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    const int d = t.directive;
    if (d >= 0 && (t.kind == TokenKind::kString || t.kind == TokenKind::kHeaderName)) {
      const bool operand =
          t.kind == TokenKind::kHeaderName ||
          (IsIncludeDirective(scan.directives[d].name) && i == src.directives()[d].first + 2);
      scan.headers.push_back(
          {t.begin, std::string(t.body), t.kind == TokenKind::kHeaderName, operand});
    }
    if (d >= 0) {
      const std::string& name = scan.directives[d].name;
      if (IsIncludeDirective(name) || name == "error" || name == "warning") continue;
    }
    switch (t.kind) {
      case TokenKind::kIdentifier:
        out.push_back({t.text, t.begin, t.line, d, true});
        break;
      case TokenKind::kNumber: {
        std::string_view text = t.text;
        if (text.find('\'') != std::string_view::npos) {
          std::string& s = scan.spellings.emplace_back(text);
          std::replace(s.begin(), s.end(), '\'', '_');
          text = s;
        }
        out.push_back({text, t.begin, t.line, d, false});
        break;
      }
      case TokenKind::kString:
        if (t.end - t.begin >= 2) out.push_back({"\"\"", t.begin, t.line, d, false});
        break;
      case TokenKind::kPunct:
        for (size_t k = 0; k < t.text.size(); ++k)
          out.push_back({t.text.substr(k, 1), t.begin + k, src.LineAt(t.begin + k), d, false});
        break;
      default:  // character literals and header names
        break;
    }
  }
  // "::" and "->", where their characters touch.
  std::vector<LintToken> merged;
  merged.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const LintToken& a = out[i];
    if (i + 1 < out.size() && out[i + 1].pos == a.pos + 1 &&
        ((a.text == ":" && out[i + 1].text == ":") || (a.text == "-" && out[i + 1].text == ">"))) {
      merged.push_back({a.text == ":" ? "::" : "->", a.pos, a.line, a.directive, false});
      ++i;
    } else {
      merged.push_back(a);
    }
  }
  return merged;
}

bool Is(const std::vector<LintToken>& t, size_t i, std::string_view text) {
  return i < t.size() && t[i].text == text;
}

std::vector<std::pair<size_t, size_t>> DirectiveTokens(const Scan& scan,
                                                       const std::vector<LintToken>& t) {
  std::vector<std::pair<size_t, size_t>> out(scan.directives.size(), {0, 0});
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].directive < 0) continue;
    auto& r = out[t[i].directive];
    if (r.first == r.second) r.first = i;
    r.second = i + 1;
  }
  return out;
}

}  // namespace hone::cxx_lint
