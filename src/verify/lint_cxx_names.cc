#include "verify/lint_cxx_names.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace hone::cxx_lint {
namespace {

// C++ keywords, with the alternative tokens (`not ::system(...)`).
bool IsKeyword(std::string_view s) {
  // clang-format off
  static const std::unordered_set<std::string_view> kKeywords = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "co_await",
      "co_return", "co_yield", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
      "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "requires", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
      "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
      "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
      "while", "xor", "xor_eq"};
  // clang-format on
  return kKeywords.count(s) > 0;
}

// What the file itself says about names used as qualifiers.
struct Names {
  // std and every name that reaches it: `namespace fs = std;`, or a
  // namespace that says `using namespace std;` (then fs::system is std's).
  std::unordered_set<std::string_view> std_like = {"std"};
  // Macro names: a qualifier that is a macro may expand to anything.
  std::unordered_set<std::string_view> macros;
  bool using_std = false;  // `using namespace std` somewhere
};

class NameCollector {
 public:
  explicit NameCollector(const std::vector<LintToken>& t) : t_(t) {}

  Names Run() && {
    for (size_t i = 0; i < t_.size(); ++i) {
      const std::string_view s = t_[i].text;
      if (s == "{") {
        open_.push_back(std::move(pending_));
        pending_.clear();
      } else if (s == "}") {
        if (!open_.empty()) open_.pop_back();
      } else if (s == ";") {
        pending_.clear();
      } else if (s == "namespace") {
        Namespace(i);
      } else if (s == "define" && t_[i].directive >= 0 && i > 0 && t_[i - 1].text == "#") {
        Define(i + 1);
      } else if (s == "using" && Is(t_, i + 1, "namespace")) {
        UsingNamespace(i + 2);
        ++i;
      }
    }
    return std::move(names_);
  }

 private:
  // namespace a::b {   or   namespace x = std;
  void Namespace(size_t i) {
    size_t k = i + 1;
    std::vector<std::string_view> parts;
    while (k < t_.size() && (t_[k].ident || t_[k].text == "::")) {
      if (t_[k].ident && t_[k].text != "inline") parts.push_back(t_[k].text);
      ++k;
    }
    if (parts.size() == 1 && Is(t_, k, "=")) {
      size_t v = k + 1;
      if (Is(t_, v, "::")) ++v;
      if (v < t_.size() && names_.std_like.count(t_[v].text) && !Is(t_, v + 1, "::"))
        names_.std_like.insert(parts[0]);
      return;
    }
    pending_ = parts;
  }

  // #define S std makes S another name of std; any other macro is unknown.
  void Define(size_t k) {
    if (k >= t_.size() || !t_[k].ident || t_[k].directive != t_[k - 1].directive) return;
    std::vector<std::string_view> body;
    for (size_t b = k + 1; b < t_.size() && t_[b].directive == t_[k].directive; ++b)
      body.push_back(t_[b].text);
    if (body == std::vector<std::string_view>{"std"} ||
        body == std::vector<std::string_view>{"::", "std"}) {
      names_.std_like.insert(t_[k].text);
    } else {
      names_.macros.insert(t_[k].text);
    }
  }

  void UsingNamespace(size_t k) {
    if (Is(t_, k, "::")) ++k;
    if (k >= t_.size() || !names_.std_like.count(t_[k].text) || Is(t_, k + 1, "::")) return;
    names_.using_std = true;
    // The enclosing namespaces (the innermost few: deeper nesting is absurd,
    // and walking all of it for every directive would be quadratic).
    const size_t from = open_.size() > 64 ? open_.size() - 64 : 0;
    for (size_t level = from; level < open_.size(); ++level)
      for (std::string_view n : open_[level]) names_.std_like.insert(n);
  }

  const std::vector<LintToken>& t_;
  Names names_;
  std::vector<std::vector<std::string_view>> open_;  // namespace names per open brace
  std::vector<std::string_view> pending_;            // a namespace header awaiting its '{'
};

enum class Qual {
  kNone,    // name
  kMember,  // x.name, p->name
  kGlobal,  // ::name, return ::name
  kStd,     // std::name, or through an alias of std
  kUser,    // mylib::name, Type<T>::name: a namespace or class, not the C library
  kMacro,   // M::name where M is a macro: it may expand to anything
};

struct Context {
  Qual qual = Qual::kNone;
  std::string_view qualifier;
  std::string_view next;  // the next token (on the same line, in a directive)
  bool next_ident = false;
  bool in_define = false;       // in a #define body, where a bare name can become a call
  bool macro_argument = false;  // directly inside M(...) for a macro M: CALL(system)("ls")
  // After a type (`Welford stat(0.f)`, `float signal(x)`): the name is being
  // declared, not called.
  bool declared = false;
};

bool IsBuiltinType(std::string_view s) {
  return s == "bool" || s == "char" || s == "char8_t" || s == "char16_t" || s == "char32_t" ||
         s == "wchar_t" || s == "short" || s == "int" || s == "long" || s == "float" ||
         s == "double" || s == "signed" || s == "unsigned" || s == "void" || s == "auto";
}

Context ContextOf(const Scan& scan, const std::vector<LintToken>& t, size_t i, const Names& names,
                  const std::vector<char>& macro_arguments) {
  Context c;
  c.macro_argument = macro_arguments[i];
  if (i + 1 < t.size() && t[i + 1].directive == t[i].directive) {
    c.next = t[i + 1].text;
    c.next_ident = t[i + 1].ident;
  }
  c.in_define = t[i].directive >= 0 && scan.directives[t[i].directive].name == "define";
  if (i == 0) return c;
  const LintToken& prev = t[i - 1];
  const std::string_view p = prev.text;
  c.declared = prev.directive == t[i].directive && prev.ident &&
               (IsBuiltinType(p) || (!IsKeyword(p) && !names.macros.count(p)));
  if (p == "." || p == "->") {
    c.qual = Qual::kMember;
  } else if (p == "::") {
    const LintToken* q = i >= 2 ? &t[i - 2] : nullptr;
    if (q && q->ident && !IsKeyword(q->text)) {
      c.qualifier = q->text;
      c.qual = names.std_like.count(q->text) ? Qual::kStd
               : names.macros.count(q->text) ? Qual::kMacro
                                             : Qual::kUser;
    } else if (q && (q->text == ">" || q->text == ")")) {
      c.qual = Qual::kUser;  // Type<T>::name, decltype(x)::name
    } else {
      c.qual = Qual::kGlobal;
    }
  }
  return c;
}

// Whether the identifier `id` in context `c` is a use of `p`.
bool Matches(const Pattern& p, std::string_view id, const Context& c, const Names& names) {
  const Qual q = c.qual;
  // Where a macro moves the name, the use's shape is not visible: `#define
  // RUN system` and `CALL(system)` make a call elsewhere. A name used as a
  // value there (before nothing, '(', ')', ',' or ';') counts as a call.
  const bool value =
      c.next.empty() || c.next == "(" || c.next == ")" || c.next == "," || c.next == ";";
  const bool moved = (c.in_define || c.macro_argument) && value;
  const bool call = (c.next == "(" && !c.declared) || moved;
  // A macro before :: may hide `std` or `return`: it counts as no qualifier.
  const bool bare = q == Qual::kNone || q == Qual::kMacro;
  const bool std_or_global = q == Qual::kStd || q == Qual::kGlobal;
  switch (p.use) {
    case Use::kName:
      return id == p.text && q != Qual::kMember;
    case Use::kCall:
      return id == p.text && ((bare && call) || std_or_global);
    case Use::kFreeCall:
      return id == p.text && ((bare && call) || q == Qual::kGlobal);
    case Use::kPointer:
      return id == p.text && ((bare && (c.next == "*" || moved)) || std_or_global);
    case Use::kPrefix:
      return StartsWith(id, p.text) && q != Qual::kMember;
    case Use::kLowerPrefix:
      return StartsWith(id, p.text) && id.size() > p.text.size() && IsLower(id[p.text.size()]) &&
             q != Qual::kMember;
    case Use::kNamespace:
      return id == p.text &&
             (q == Qual::kStd || ((bare || q == Qual::kGlobal) &&
                                  (c.next == "::" || (c.in_define && c.next.empty()))));
    case Use::kStd:
      if (id != p.text) return false;
      if (q == Qual::kStd) return c.next != "::";
      return names.using_std && q == Qual::kNone &&
             (c.next_ident || c.next == "(" || c.next == "{");
    case Use::kBoost:
      return id == p.text && c.qualifier == "boost";
  }
  return false;
}

// What a finding quotes for a name use: the name, or its qualified form.
std::string Display(const Pattern& p, std::string_view id, const Context& c) {
  if (p.use == Use::kStd || p.use == Use::kBoost) {
    if (c.qualifier.empty()) return std::string(id);  // bare, after `using namespace std`
    return std::string(c.qualifier) + "::" + std::string(id);
  }
  if (p.use == Use::kNamespace)
    return c.qual == Qual::kStd ? "std::" + std::string(id) : std::string(id) + "::";
  return std::string(id);
}

struct PatternIndex {
  std::unordered_map<std::string_view, std::vector<const Pattern*>> exact;
  std::vector<const Pattern*> prefixes;
};

const PatternIndex& Index() {
  static const PatternIndex index = [] {
    PatternIndex ix;
    for (const Pattern& p : NamePatterns()) {
      if (p.use == Use::kPrefix || p.use == Use::kLowerPrefix) {
        ix.prefixes.push_back(&p);
      } else {
        ix.exact[p.text].push_back(&p);
      }
    }
    return ix;
  }();
  return index;
}

const Pattern* MatchIdentifier(std::string_view id, const Context& c, const Names& names) {
  const PatternIndex& ix = Index();
  if (auto it = ix.exact.find(id); it != ix.exact.end()) {
    for (const Pattern* p : it->second)
      if (Matches(*p, id, c, names)) return p;
  }
  for (const Pattern* p : ix.prefixes)
    if (Matches(*p, id, c, names)) return p;
  return nullptr;
}

// The parameters of each function-like #define: placeholders, not uses
// (`#define IDX(thread, block) ...` names no std::thread).
std::unordered_set<size_t> MacroParameters(const Scan& scan, const std::vector<LintToken>& t,
                                           const std::vector<std::pair<size_t, size_t>>& ranges) {
  std::unordered_set<size_t> out;
  for (size_t d = 0; d < scan.directives.size(); ++d) {
    const auto [first, last] = ranges[d];
    if (scan.directives[d].name != "define" || first + 3 >= last) continue;
    const LintToken& name = t[first + 2];
    if (t[first + 3].text != "(" || t[first + 3].pos != name.pos + name.text.size()) continue;
    std::unordered_set<std::string_view> params;
    for (size_t k = first + 4; k < last && t[k].text != ")"; ++k)
      if (t[k].ident) params.insert(t[k].text);
    for (size_t k = first + 4; k < last; ++k)
      if (params.count(t[k].text)) out.insert(k);
  }
  return out;
}

// For each token, whether the innermost parenthesis around it follows a
// macro name: it is a macro argument, and may become anything.
std::vector<char> MacroArguments(const std::vector<LintToken>& t, const Names& names) {
  std::vector<char> out(t.size(), 0);
  std::vector<char> opened;  // per open '(': whether a macro name precedes it
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].directive >= 0) continue;
    if (t[i].text == "(") {
      opened.push_back(i > 0 && t[i - 1].ident && names.macros.count(t[i - 1].text));
    } else if (t[i].text == ")") {
      if (!opened.empty()) opened.pop_back();
    } else {
      out[i] = !opened.empty() && opened.back();
    }
  }
  return out;
}

}  // namespace

void MatchNames(const Scan& scan, const std::vector<LintToken>& t,
                const std::vector<std::pair<size_t, size_t>>& ranges, std::vector<Hit>& hits) {
  const Names names = NameCollector(t).Run();
  const std::unordered_set<size_t> params = MacroParameters(scan, t, ranges);
  const std::vector<char> macro_arguments = MacroArguments(t, names);
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].ident || params.count(i)) continue;
    const Context c = ContextOf(scan, t, i, names, macro_arguments);
    if (const Pattern* p = MatchIdentifier(t[i].text, c, names))
      hits.push_back({t[i].pos, t[i].line, p->rule, Display(*p, t[i].text, c)});
  }
}

}  // namespace hone::cxx_lint
