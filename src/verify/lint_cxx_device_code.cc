#include "verify/lint_cxx_device_code.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace hone::cxx_lint {
namespace {

bool IsAsmKeyword(std::string_view s) { return s == "asm" || s == "__asm__" || s == "__asm"; }

// Macros, as far as deciding device code needs them.
struct Macro {
  std::vector<std::string_view> body;      // of the last definition
  std::vector<std::string_view> mentions;  // identifiers in any definition
  bool function_like = false;
  int definitions = 0;
  bool conditional = false;  // defined inside #if
  bool undefined = false;    // #undef'd somewhere
  bool separates = false;    // a body holds ';', '{' or '}': it can end a header
  bool has_asm = false;      // a body holds asm, directly or through another macro
  size_t asm_token = 0;      // that asm token
};

struct Macros {
  std::unordered_map<std::string_view, Macro> by_name;
  bool tampered = false;  // redefines CUDA's specifiers or asm, or closes a brace it did not open
  bool pasting = false;   // uses ## (a macro name may be built from pieces)
};

bool IsCudaSpecial(std::string_view s) {
  return s == "__global__" || s == "__device__" || s == "__host__" || s == "__CUDA_ARCH__" ||
         IsAsmKeyword(s);
}

// Reads one #define body into `macro`; flags what makes the file's braces
// untrustworthy.
void ReadMacroBody(const std::vector<LintToken>& t, size_t body, size_t last, Macro& macro,
                   Macros& m) {
  int braces = 0;
  bool dipped = false;
  macro.body.clear();
  for (size_t k = body; k < last; ++k) {
    const std::string_view s = t[k].text;
    macro.body.push_back(s);
    if (t[k].ident) macro.mentions.push_back(s);
    braces += s == "{" ? 1 : s == "}" ? -1 : 0;
    dipped |= braces < 0;
    macro.separates |= s == ";" || s == "{" || s == "}";
    if (s == "#" && k + 1 < last && t[k + 1].text == "#" && t[k + 1].pos == t[k].pos + 1)
      m.pasting = true;
    if (IsAsmKeyword(s) && !macro.has_asm) {
      macro.has_asm = true;
      macro.asm_token = k;
    }
  }
  // `#define X } void host() {` closes a body and opens another where it is used.
  if (braces != 0 || dipped) m.tampered = true;
}

// A macro that mentions an asm macro holds asm too (breadth first, linear).
void SpreadAsm(Macros& m) {
  std::unordered_map<std::string_view, std::vector<std::string_view>> users;
  std::vector<std::string_view> queue;
  for (auto& [name, macro] : m.by_name) {
    for (std::string_view s : macro.mentions)
      if (s != name) users[s].push_back(name);
    if (macro.has_asm) queue.push_back(name);
  }
  while (!queue.empty()) {
    const std::string_view name = queue.back();
    queue.pop_back();
    const size_t asm_token = m.by_name[name].asm_token;
    for (std::string_view user : users[name]) {
      Macro& u = m.by_name[user];
      if (u.has_asm) continue;
      u.has_asm = true;
      u.asm_token = asm_token;
      queue.push_back(user);
    }
  }
}

Macros CollectMacros(const Scan& scan, const std::vector<LintToken>& t,
                     const std::vector<std::pair<size_t, size_t>>& ranges) {
  Macros m;
  int conditional_depth = 0;
  for (size_t d = 0; d < scan.directives.size(); ++d) {
    const std::string& name = scan.directives[d].name;
    const auto [first, last] = ranges[d];
    if (name == "if" || name == "ifdef" || name == "ifndef") ++conditional_depth;
    if (name == "endif" && conditional_depth > 0) --conditional_depth;
    if ((name != "define" && name != "undef") || first + 2 >= last || !t[first + 2].ident) continue;
    const LintToken& id = t[first + 2];
    if (IsCudaSpecial(id.text)) m.tampered = true;
    Macro& macro = m.by_name[id.text];
    if (name == "undef") {
      macro.undefined = true;
      continue;
    }
    ++macro.definitions;
    macro.conditional |= conditional_depth > 0;
    size_t body = first + 3;
    // A '(' right after the name, with no space, makes it function-like.
    if (body < last && t[body].text == "(" && t[body].pos == id.pos + id.text.size()) {
      macro.function_like = true;
      while (body < last && t[body].text != ")") ++body;
      ++body;
    }
    ReadMacroBody(t, body, last, macro, m);
  }
  SpreadAsm(m);
  return m;
}

// Which tokens are device code in a .cu source. It walks the braces: a '{'
// at declaration level opens a scope (namespace, class, extern "C") or a
// function body, classified by its header (the text since the previous
// ';', '{' or '}'). A body whose header says __global__ or __device__ (not
// __host__ too) is device code, and so is everything nested in it. Code in
// an `#ifdef __CUDA_ARCH__` branch is device code wherever it is.
//
// Preprocessor conditionals can make the braces mean two things; when a
// branch does not close what it opens, or a macro redefines __device__ or
// holds an unbalanced brace, nothing is trusted to be device code.
class DeviceWalk {
 public:
  DeviceWalk(const Scan& scan, const std::vector<LintToken>& t,
             const std::vector<std::pair<size_t, size_t>>& ranges, const Macros& macros)
      : scan_(scan), t_(t), ranges_(ranges), macros_(macros), trusted_(!macros.tampered) {}

  // For each token index in `sites` (outside directives), whether it is
  // device code.
  std::unordered_map<size_t, bool> Run(const std::unordered_set<size_t>& sites) && {
    std::unordered_map<size_t, bool> device;
    for (size_t i = 0; i < t_.size(); ++i) {
      const LintToken& tok = t_[i];
      if (tok.directive >= 0) {
        if (ranges_[tok.directive].first == i) OnDirective(tok.directive);
        continue;
      }
      if (tok.text == "{") {
        Open(i);
      } else if (tok.text == "}") {
        Close(i);
      } else if (tok.text == ";") {
        ResetHeader(i);
      } else if (sites.count(i)) {
        device[i] = device_groups_ > 0 || (frames_.back().body && frames_.back().device);
      }
    }
    if (!trusted_)
      for (auto& [i, d] : device) d = false;
    return device;
  }

 private:
  struct Frame {
    bool body = false;    // a function body or a block in one (else a scope)
    bool device = false;  // inside a __global__ / __device__ function
  };
  struct Group {
    size_t depth = 0;      // frames open when the #if started
    bool device = false;   // the current branch compiles only for the device
    bool negated = false;  // #ifndef __CUDA_ARCH__: every later branch is device code
  };

  void ResetHeader(size_t i) { header_start_ = i + 1; }

  void Open(size_t i) {
    const std::vector<std::string_view> h = Header(i);
    const Frame& top = frames_.back();
    Frame f;
    if (top.body) {
      f = IsTypeHeader(h) ? Frame{false, false} : Frame{true, top.device};
    } else if (IsScopeHeader(h)) {
      f = Frame{false, false};
    } else {
      // A header cut by #if/#else may be two headers; trust neither.
      const bool cut = conditional_seen_ && last_conditional_pos_ > FirstHeaderPos(i);
      f = Frame{true, !cut && IsDeviceFunctionHeader(h)};
    }
    frames_.push_back(f);
    ResetHeader(i);
  }

  void Close(size_t i) {
    if (frames_.size() > 1) {
      frames_.pop_back();
    } else {
      trusted_ = false;  // a '}' that closes nothing
    }
    // A branch may not close what was opened before it.
    if (!groups_.empty() && frames_.size() < groups_.back().depth) trusted_ = false;
    ResetHeader(i);
  }

  // Where the header's first token outside directives is (or the '{').
  size_t FirstHeaderPos(size_t end) const {
    for (size_t k = header_start_; k < end; ++k)
      if (t_[k].directive < 0) return t_[k].pos;
    return t_[end].pos;
  }

  // The header's tokens, with trusted object-like macros expanded (so
  // `#define DEVICE __device__ __forceinline__` works). A macro that can
  // hold ';' or a brace leaves a ";": `__device__ int x SEMI void host()`
  // is two declarations.
  std::vector<std::string_view> Header(size_t end) const {
    std::vector<std::string_view> out;
    for (size_t k = header_start_; k < end; ++k)
      if (t_[k].directive < 0) Expand(t_[k].text, out, 0);
    return out;
  }

  void Expand(std::string_view s, std::vector<std::string_view>& out, int depth) const {
    static constexpr size_t kMaxExpansion = 4096;  // macros can grow exponentially
    auto it = macros_.by_name.find(s);
    if (it == macros_.by_name.end()) {
      out.push_back(s);
      return;
    }
    const Macro& m = it->second;
    const bool trusted = !m.function_like && m.definitions == 1 && !m.conditional && !m.undefined &&
                         depth < 8 && out.size() < kMaxExpansion;
    if (m.separates || !trusted) {
      out.push_back(m.separates ? ";" : s);
      return;
    }
    for (std::string_view b : m.body) Expand(b, out, depth + 1);
  }

  static size_t SkipTemplateParameters(const std::vector<std::string_view>& h, size_t k) {
    int angle = 0, paren = 0;
    for (; k < h.size(); ++k) {
      if (h[k] == "(") ++paren;
      if (h[k] == ")") --paren;
      if (paren > 0) continue;
      if (h[k] == "<") ++angle;
      if (h[k] == ">" && --angle <= 0) return k;
    }
    return k;
  }

  // A class key before any '(' (template parameter lists skipped).
  static bool IsTypeHeader(const std::vector<std::string_view>& h) {
    for (size_t k = 0; k < h.size(); ++k) {
      if (h[k] == "template" && k + 1 < h.size() && h[k + 1] == "<") {
        k = SkipTemplateParameters(h, k + 1);
        continue;
      }
      if (h[k] == "(") return false;
      if (h[k] == "struct" || h[k] == "class" || h[k] == "union" || h[k] == "enum" ||
          h[k] == "namespace")
        return true;
    }
    return false;
  }

  static bool IsScopeHeader(const std::vector<std::string_view>& h) {
    if (h.size() == 2 && h[0] == "extern" && h[1] == "\"\"") return true;  // extern "C" {
    return IsTypeHeader(h);
  }

  // A function definition's header: __global__ or __device__ (without
  // __host__) outside brackets, and a parameter list. Initializers are not
  // functions, and a lambda in one is host code: no '=' outside brackets
  // (`__device__ auto f = [] {...}`), no brackets left open
  // (`__device__ S s({[] {...}})`), no declarator in parentheses
  // (`__device__ void (*fp)() {[] {...}}`).
  static bool IsDeviceFunctionHeader(const std::vector<std::string_view>& h) {
    bool device = false, host = false, params = false;
    int depth = 0;
    for (size_t k = 0; k < h.size(); ++k) {
      const std::string_view s = h[k];
      if (s == ";" || s == "{" || s == "}") return false;
      if (s == "template" && k + 1 < h.size() && h[k + 1] == "<") {
        k = SkipTemplateParameters(h, k + 1);
      } else if (s == "operator") {
        k = SkipOperatorSymbol(h, k);
      } else if (s == "(" || s == "[") {
        if (depth == 0 && s == "(" && IsParenthesizedDeclarator(h, k)) return false;
        params |= depth == 0 && s == "(";
        ++depth;
      } else if (s == ")" || s == "]") {
        depth = std::max(0, depth - 1);
      } else if (depth == 0) {
        if (s == "__global__" || s == "__device__") device = true;
        if (s == "__host__") host = true;
        if (s == "=") return false;
      }
    }
    return device && !host && params && depth == 0;
  }

  // `(*name`, `(&name`, `(Class::*name`: a pointer or reference declarator.
  static bool IsParenthesizedDeclarator(const std::vector<std::string_view>& h, size_t k) {
    size_t j = k + 1;
    while (j + 1 < h.size() && (h[j] == "::" || (h[j + 1] == "::" && h[j] != "*"))) ++j;
    return j < h.size() && (h[j] == "*" || h[j] == "&" || h[j] == "^");
  }

  // operator=, operator==, operator(), operator[] ...: the symbol is a name.
  static size_t SkipOperatorSymbol(const std::vector<std::string_view>& h, size_t k) {
    if (k + 2 < h.size() &&
        ((h[k + 1] == "(" && h[k + 2] == ")") || (h[k + 1] == "[" && h[k + 2] == "]")))
      return k + 2;
    static constexpr std::string_view kSymbols = "=!<>+-*/%^&|~,";
    while (k + 1 < h.size() && h[k + 1].size() == 1 &&
           kSymbols.find(h[k + 1][0]) != std::string_view::npos)
      ++k;
    return k;
  }

  void OnDirective(int d) {
    const std::string& name = scan_.directives[d].name;
    const auto [first, last] = ranges_[d];
    std::vector<std::string_view> cond;
    for (size_t k = first + 2; k < last; ++k) cond.push_back(t_[k].text);
    const bool is_conditional = name == "if" || name == "ifdef" || name == "ifndef" ||
                                name == "elif" || name == "else" || name == "endif" ||
                                name == "elifdef" || name == "elifndef";
    if (!is_conditional) return;
    conditional_seen_ = true;
    last_conditional_pos_ = scan_.directives[d].begin;
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      Group g;
      g.depth = frames_.size();
      const bool arch_only = cond.size() == 1 && cond[0] == "__CUDA_ARCH__";
      if (name == "ifdef") g.device = arch_only;
      if (name == "ifndef") g.negated = arch_only;
      if (name == "if") {
        g.device = IsDeviceCondition(cond);
        g.negated = IsHostCondition(cond);
      }
      groups_.push_back(g);
      device_groups_ += g.device;
      return;
    }
    if (groups_.empty()) return;
    Group& g = groups_.back();
    if (frames_.size() != g.depth) trusted_ = false;  // the branch did not close what it opened
    device_groups_ -= g.device;
    if (name == "endif") {
      groups_.pop_back();
      return;
    }
    g.device = g.negated || (name == "elif" && IsDeviceCondition(cond));
    device_groups_ += g.device;
  }

  // A condition false whenever __CUDA_ARCH__ is undefined (the host pass):
  // an && chain with a conjunct `defined(__CUDA_ARCH__)`, `__CUDA_ARCH__`,
  // or `__CUDA_ARCH__ >= N` / `> N` / `== N` with N > 0. (`__CUDA_ARCH__ < 900`
  // is true on the host, where it reads as 0.)
  static bool IsDeviceCondition(const std::vector<std::string_view>& c) {
    int depth = 0;
    for (std::string_view s : c) {
      depth += s == "(" ? 1 : s == ")" ? -1 : 0;
      if (depth == 0 && (s == "|" || s == "?" || s == ",")) return false;
    }
    size_t start = 0;
    depth = 0;
    for (size_t k = 0; k <= c.size(); ++k) {
      const bool split =
          k == c.size() || (depth == 0 && c[k] == "&" && k + 1 < c.size() && c[k + 1] == "&");
      if (k < c.size()) depth += c[k] == "(" ? 1 : c[k] == ")" ? -1 : 0;
      if (!split) continue;
      if (IsDeviceConjunct(std::vector<std::string_view>(c.begin() + start, c.begin() + k)))
        return true;
      start = k + 2;
      ++k;
    }
    return false;
  }

  static bool IsDeviceConjunct(const std::vector<std::string_view>& all) {
    size_t lo = 0, hi = all.size();
    while (hi - lo >= 2 && all[lo] == "(" && all[hi - 1] == ")") ++lo, --hi;
    const std::vector<std::string_view> c(all.begin() + lo, all.begin() + hi);
    const std::string_view arch = "__CUDA_ARCH__";
    if (c.size() == 1) return c[0] == arch;
    if (c.size() == 2) return c[0] == "defined" && c[1] == arch;
    if (c.size() == 4 && c[0] == "defined" && c[1] == "(" && c[2] == arch && c[3] == ")")
      return true;
    if (c.empty() || c[0] != arch || !IsPositiveNumber(c.back())) return false;
    return (c.size() == 3 && c[1] == ">") ||
           (c.size() == 4 && (c[1] == ">" || c[1] == "=") && c[2] == "=");
  }

  static bool IsPositiveNumber(std::string_view s) {
    if (s.empty()) return false;
    bool nonzero = false;
    for (char ch : s) {
      if (!IsDigit(ch)) return false;
      nonzero |= ch != '0';
    }
    return nonzero;
  }

  // `!defined(__CUDA_ARCH__)`: its #else and #elif branches are device code.
  static bool IsHostCondition(const std::vector<std::string_view>& c) {
    const std::string_view arch = "__CUDA_ARCH__";
    if (c.size() == 3) return c[0] == "!" && c[1] == "defined" && c[2] == arch;
    return c.size() == 5 && c[0] == "!" && c[1] == "defined" && c[2] == "(" && c[3] == arch &&
           c[4] == ")";
  }

  const Scan& scan_;
  const std::vector<LintToken>& t_;
  const std::vector<std::pair<size_t, size_t>>& ranges_;
  const Macros& macros_;
  bool trusted_;
  std::vector<Frame> frames_{Frame{}};
  std::vector<Group> groups_;
  int device_groups_ = 0;  // groups whose current branch is device code only
  size_t header_start_ = 0;
  bool conditional_seen_ = false;
  size_t last_conditional_pos_ = 0;
};

}  // namespace

void MatchAsm(const Scan& scan, const std::vector<LintToken>& t,
              const std::vector<std::pair<size_t, size_t>>& ranges, bool cuda,
              std::vector<Hit>& hits) {
  const Macros macros = CollectMacros(scan, t, ranges);
  struct Site {
    size_t token;
    std::string display;
  };
  std::vector<Site> sites;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].ident) continue;
    if (t[i].directive >= 0) {
      // Pasting (##) can build a macro's name where no use is visible:
      // then asm in a macro counts where it is written.
      if (IsAsmKeyword(t[i].text) && macros.pasting &&
          scan.directives[t[i].directive].name == "define")
        hits.push_back({t[i].pos, t[i].line, kInlineAsm, std::string(t[i].text)});
      continue;
    }
    if (IsAsmKeyword(t[i].text)) {
      sites.push_back({i, std::string(t[i].text)});
    } else if (auto it = macros.by_name.find(t[i].text);
               it != macros.by_name.end() && it->second.has_asm) {
      sites.push_back(
          {i, std::string(t[it->second.asm_token].text) + " in macro " + std::string(t[i].text)});
    }
  }
  if (sites.empty()) return;
  std::unordered_map<size_t, bool> device;
  if (cuda) {
    std::unordered_set<size_t> indices;
    for (const Site& s : sites) indices.insert(s.token);
    device = DeviceWalk(scan, t, ranges, macros).Run(indices);
  }
  for (const Site& s : sites) {
    if (device.count(s.token) && device[s.token]) continue;
    hits.push_back({t[s.token].pos, t[s.token].line, kInlineAsm, s.display});
  }
}

void DropDeviceIntrospection(const Scan& scan, const std::vector<LintToken>& t,
                             const std::vector<std::pair<size_t, size_t>>& ranges,
                             std::vector<Hit>& hits) {
  std::unordered_map<size_t, size_t> token_at;  // position -> token index
  for (const Hit& h : hits)
    if (h.rule == kIntrospection) token_at[h.pos] = t.size();
  if (token_at.empty()) return;
  std::unordered_set<size_t> indices;
  for (size_t i = 0; i < t.size(); ++i)
    if (auto it = token_at.find(t[i].pos); it != token_at.end() && it->second == t.size()) {
      it->second = i;
      indices.insert(i);
    }
  const Macros macros = CollectMacros(scan, t, ranges);
  std::unordered_map<size_t, bool> device = DeviceWalk(scan, t, ranges, macros).Run(indices);
  std::erase_if(hits, [&](const Hit& h) {
    if (h.rule != kIntrospection) return false;
    auto it = token_at.find(h.pos);
    return it != token_at.end() && it->second < t.size() && device[it->second];
  });
}

}  // namespace hone::cxx_lint
