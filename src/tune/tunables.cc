#include "tune/tunables.h"

#include <cctype>
#include <regex>
#include <set>

namespace hone {

namespace {

bool IsToken(const std::string& v) {
  if (v.empty()) return false;
  for (char c : v)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      return false;
  return true;
}

std::vector<std::string> SplitValues(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : list + ",") {
    if (c == ',') {
      size_t b = cur.find_first_not_of(" \t"), e = cur.find_last_not_of(" \t");
      out.push_back(b == std::string::npos ? "" : cur.substr(b, e - b + 1));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

Status LineError(int line, const std::string& what) {
  return Status::Invalid("line " + std::to_string(line) + ": " + what);
}

// A `#define NAME` not preceded by an `#ifndef NAME` would override every variant.
Status CheckGuarded(std::string_view source, const std::string& name) {
  std::regex define("^\\s*#\\s*define\\s+" + name + "\\b");
  std::regex guard("^\\s*#\\s*(ifndef\\s+" + name + "\\b|if\\s+!\\s*defined\\s*\\(?\\s*" + name +
                   "\\b)");
  bool guarded = false;
  int line = 0;
  size_t pos = 0;
  while (pos <= source.size()) {
    size_t nl = source.find('\n', pos);
    std::string text(
        source.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    ++line;
    if (std::regex_search(text, guard)) guarded = true;
    if (std::regex_search(text, define) && !guarded)
      return LineError(line, "tunable " + name + " is #defined without `#ifndef " + name +
                                 "` around it: hone's value could not take effect");
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<Tunable>> ParseTunables(std::string_view source) {
  static const std::regex decl(R"(^\s*(//|#)\s*hone:\s*tune\b(.*)$)");
  static const std::regex body(R"(^\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\s*\{([^}]*)\}\s*$)");
  std::vector<Tunable> out;
  std::set<std::string> names;
  size_t variants = 1, pos = 0;
  int line = 0;
  while (pos <= source.size()) {
    size_t nl = source.find('\n', pos);
    std::string text(
        source.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    ++line;
    std::smatch m, b;
    if (std::regex_match(text, m, decl)) {
      std::string rest = m[2];
      if (!std::regex_match(rest, b, body))
        return LineError(line, "expected `// hone: tune NAME in {v1, v2, ...}`");
      Tunable t{b[1], SplitValues(b[2]), line};
      for (const auto& v : t.values)
        if (!IsToken(v))
          return LineError(line, "tunable " + t.name + ": '" + v + "' is not a number or a name");
      if (!names.insert(t.name).second)
        return LineError(line, "tunable " + t.name + " is declared twice");
      if (t.values.size() > 16)
        return LineError(line, "tunable " + t.name + " has more than 16 values");
      variants *= t.values.size();
      if (variants > kMaxTuneVariants)
        return LineError(line,
                         "more than " + std::to_string(kMaxTuneVariants) + " variants in all");
      out.push_back(std::move(t));
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  for (const auto& t : out) HONE_RETURN_IF_ERROR(CheckGuarded(source, t.name));
  return out;
}

std::vector<TuneAssignment> Combinations(const std::vector<Tunable>& tunables) {
  std::vector<TuneAssignment> out = {{}};
  for (const auto& t : tunables) {
    std::vector<TuneAssignment> next;
    for (const auto& partial : out)
      for (const auto& v : t.values) {
        TuneAssignment a = partial;
        a.emplace_back(t.name, v);
        next.push_back(std::move(a));
      }
    out = std::move(next);
  }
  return out;
}

std::string ApplyTunables(std::string_view source, const TuneAssignment& assignment) {
  std::string out;
  for (const auto& [name, value] : assignment) out += "#define " + name + " " + value + "\n";
  return out + "#line 1\n" + std::string(source);
}

std::string FormatAssignment(const TuneAssignment& assignment) {
  std::string out;
  for (const auto& [name, value] : assignment) out += (out.empty() ? "" : " ") + name + "=" + value;
  return out;
}

}  // namespace hone
