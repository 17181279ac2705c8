#include "verify/lint_cxx_headers.h"

#include <string>
#include <string_view>

namespace hone::cxx_lint {
namespace {

const HeaderPattern* MatchHeader(std::string_view name) {
  std::vector<std::string_view> parts;
  for (size_t from = 0;;) {
    const size_t slash = name.find('/', from);
    parts.push_back(name.substr(from, slash == std::string_view::npos ? slash : slash - from));
    if (slash == std::string_view::npos) break;
    from = slash + 1;
  }
  const std::string_view file = parts.back();
  for (const HeaderPattern& h : HeaderPatterns()) {
    switch (h.how) {
      case HeaderMatch::kFile:
        if (file == h.text) return &h;
        break;
      case HeaderMatch::kFilePrefix:
        if (StartsWith(file, h.text)) return &h;
        break;
      case HeaderMatch::kDirectory:
        for (size_t k = 0; k + 1 < parts.size(); ++k)
          if (parts[k] == h.text) return &h;
        break;
      case HeaderMatch::kPath:
        if (StartsWith(name, h.text)) return &h;
        break;
    }
  }
  return nullptr;
}

// `#define H <dlfcn.h>` names a header for a later `#include H`.
std::vector<HeaderName> MacroHeaders(const Scan& scan, const std::vector<LintToken>& t,
                                     const std::vector<std::pair<size_t, size_t>>& ranges) {
  std::vector<HeaderName> out;
  for (size_t d = 0; d < scan.directives.size(); ++d) {
    const auto [first, last] = ranges[d];
    if (scan.directives[d].name != "define" || first + 4 >= last) continue;
    if (t[first + 3].text != "<" || t[last - 1].text != ">") continue;
    std::string name;
    for (size_t k = first + 4; k + 1 < last; ++k) name += t[k].text;
    out.push_back({t[first + 3].pos, std::move(name), true, false});
  }
  return out;
}

}  // namespace

void MatchHeaders(const Scan& scan, const std::vector<LintToken>& t,
                  const std::vector<std::pair<size_t, size_t>>& ranges, std::vector<Hit>& hits) {
  std::vector<HeaderName> headers = scan.headers;
  for (HeaderName& h : MacroHeaders(scan, t, ranges)) headers.push_back(std::move(h));
  for (const HeaderName& h : headers) {
    const HeaderPattern* p = MatchHeader(h.name);
    if (!p) continue;
    const std::string quoted = h.angled ? "<" + h.name + ">" : "\"" + h.name + "\"";
    hits.push_back({h.pos, scan.Line(h.pos), p->rule, h.included ? "#include " + quoted : quoted});
  }
}

}  // namespace hone::cxx_lint
