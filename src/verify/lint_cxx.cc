#include "verify/lint_cxx.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "verify/lint_cxx_device_code.h"
#include "verify/lint_cxx_headers.h"
#include "verify/lint_cxx_names.h"
#include "verify/lint_cxx_rules.h"
#include "verify/lint_cxx_scan.h"

namespace hone {
namespace cxx_lint {
namespace {

bool IsLoadTimeAttribute(std::string_view s) {
  return s == "constructor" || s == "__constructor__" || s == "destructor" ||
         s == "__destructor__" || s == "section" || s == "__section__" || s == "ifunc" ||
         s == "__ifunc__";
}

// __attribute__((constructor)), [[gnu::section(".init_array")]] and the like:
// code the loader runs, or data it treats as code to run. (target_clones
// also makes an ifunc, but the compiler writes its resolver: it is fine.)
void MatchAttributes(const std::vector<LintToken>& t, std::vector<Hit>& hits) {
  // One pass: inside an __attribute__((...)) or [[...]] until its brackets
  // close again.
  bool inside = false;
  std::string_view open, close;
  int depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string_view s = t[i].text;
    if (!inside) {
      if ((s == "__attribute__" || s == "__attribute") && Is(t, i + 1, "(")) {
        inside = true, open = "(", close = ")", depth = 0;
      } else if (s == "[" && Is(t, i + 1, "[")) {
        inside = true, open = "[", close = "]", depth = 1;
      }
      continue;
    }
    if (s == open) ++depth;
    if (s == close && --depth <= 0) inside = false;
    if (t[i].ident && IsLoadTimeAttribute(s)) {
      const std::string name(s);
      hits.push_back({t[i].pos, t[i].line, kLoadTimeCode,
                      open == "(" ? "__attribute__((" + name + "))" : "[[" + name + "]]"});
    }
  }
}

}  // namespace
}  // namespace cxx_lint

const std::vector<LintRule>& CxxLintRules() { return cxx_lint::RuleList(); }

std::vector<LintFinding> LintCxxSource(std::string_view source, const LintOptions& options) {
  using namespace cxx_lint;
  const CxxSource src(source);
  Scan scan{src, {}, {}, {}};
  const std::vector<LintToken> tokens = LintTokens(scan);
  const auto ranges = DirectiveTokens(scan, tokens);
  std::vector<Hit> hits;
  MatchHeaders(scan, tokens, ranges, hits);
  MatchNames(scan, tokens, ranges, hits);
  MatchAttributes(tokens, hits);
  MatchAsm(scan, tokens, ranges, options.cuda, hits);
  if (options.cuda) DropDeviceIntrospection(scan, tokens, ranges, hits);
  std::stable_sort(hits.begin(), hits.end(),
                   [](const Hit& a, const Hit& b) { return a.pos < b.pos; });
  const std::vector<LintRule>& rules = RuleList();
  std::vector<LintFinding> out;
  for (Hit& h : hits) {
    const LintRule& r = rules[h.rule];
    if (options.allowed.count(r.name)) continue;
    out.push_back({r.name, h.line, std::move(h.token), r.explanation});
  }
  return out;
}

}  // namespace hone
