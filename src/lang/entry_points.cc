#include "lang/entry_points.h"

#include <cctype>

namespace hone {
namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The offsets where `word` starts a line (after indentation), as a whole word.
template <typename Fn>
bool AnyLineStart(std::string_view code, std::string_view word, Fn then) {
  for (size_t at = code.find(word); at != std::string_view::npos; at = code.find(word, at + 1)) {
    size_t b = at;
    while (b > 0 && (code[b - 1] == ' ' || code[b - 1] == '\t')) --b;
    if (b > 0 && code[b - 1] != '\n') continue;
    size_t end = at + word.size();
    if (end < code.size() && IsIdentChar(code[end])) continue;
    if (then(code.substr(end))) return true;
  }
  return false;
}

std::string_view SkipSpaces(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

}  // namespace

bool DefinesHoneForward(std::string_view code) {
  static constexpr std::string_view kName = "hone_forward";
  for (size_t at = code.find(kName); at != std::string_view::npos; at = code.find(kName, at + 1)) {
    size_t i = at + kName.size();
    if ((at > 0 && IsIdentChar(code[at - 1])) || (i < code.size() && IsIdentChar(code[i])))
      continue;
    i = code.find_first_not_of(" \t\n", i);
    if (i == std::string_view::npos || code[i] != '(') continue;
    int depth = 0;
    for (; i < code.size(); ++i) {
      if (code[i] == '(') ++depth;
      if (code[i] == ')' && --depth == 0) break;
    }
    i = i < code.size() ? code.find_first_not_of(" \t\n", i + 1) : i;
    if (i != std::string_view::npos && i < code.size() && code[i] == '{') return true;
  }
  return false;
}

bool DefinesModelNew(std::string_view code) {
  return AnyLineStart(code, "class", [](std::string_view rest) {
    rest = SkipSpaces(rest);
    if (rest.substr(0, 8) != "ModelNew") return false;
    rest = SkipSpaces(rest.substr(8));
    return !rest.empty() && (rest[0] == '(' || rest[0] == ':');
  });
}

bool ImportsTriton(std::string_view code) {
  auto is_triton = [](std::string_view name) {
    name = SkipSpaces(name);
    return name.substr(0, 6) == "triton" && (name.size() == 6 || !IsIdentChar(name[6]));
  };
  auto any_module = [&](std::string_view rest) {  // `import a, triton.language as tl`
    rest = rest.substr(0, rest.find('\n'));
    for (size_t comma; (comma = rest.find(',')) != std::string_view::npos;
         rest.remove_prefix(comma + 1))
      if (is_triton(rest.substr(0, comma))) return true;
    return is_triton(rest);
  };
  return AnyLineStart(code, "import", any_module) || AnyLineStart(code, "from", is_triton);
}

}  // namespace hone
