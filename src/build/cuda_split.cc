#include "build/cuda_split.h"

#include <map>
#include <optional>
#include <set>

#include "build/cxx_tokens.h"

namespace hone {

namespace {

constexpr std::string_view kLauncherPrefix = "hone_launch_";

enum class Side { kDevice, kHost, kBoth };

struct Kernel {
  std::string name;
  std::string template_header;  // "template <typename T, int B>", or ""
  std::string template_args;    // "<T, B>" to name the kernel in its launcher, or ""
  std::string params;           // the parameter list's text, between its parentheses
  std::vector<std::string> arg_names;
  bool has_body = false;
};

struct Item {
  Item(size_t f, size_t l) : first(f), last(l) {}
  size_t first, last;  // tokens [first, last)
  Side side = Side::kHost;
  std::optional<Kernel> kernel;
  bool is_namespace = false;
  std::string namespace_header;  // "namespace a {"
  std::vector<Item> children;
};

Status NotSplit(const std::string& why) { return Status::Invalid(why); }

// Identifiers that mean torch (or pybind11) is in use.
bool IsTorchName(std::string_view id) {
  static const std::set<std::string_view> names = {
      "torch", "at", "c10", "pybind11", "py", "Tensor", "PYBIND11_MODULE", "TORCH_EXTENSION_NAME"};
  return names.count(id) || id.starts_with("TORCH_") || id.starts_with("AT_") ||
         id.starts_with("C10_");
}

bool IsTorchHeader(std::string_view h) {
  for (std::string_view p : {"torch/", "ATen/", "c10/", "pybind11/", "THC/", "caffe2/"})
    if (h.starts_with(p)) return true;
  return h == "Python.h";
}

// Headers that only make sense in device code; the host half leaves them out.
bool IsDeviceHeader(std::string_view h) {
  for (std::string_view p :
       {"cooperative_groups", "cub/", "thrust/", "cuda/", "mma.h", "cuda_pipeline",
        "cuda_awbarrier", "crt/", "sm_", "cute/", "cutlass/", "curand_kernel", "cuda/barrier"})
    if (h.starts_with(p)) return true;
  return false;
}

class Splitter {
 public:
  Splitter(std::string_view src, std::vector<Token> tokens, std::string file)
      : src_(src), tok_(std::move(tokens)), file_(std::move(file)) {}

  Result<CudaSplit> Run(const std::vector<std::string>& host_defines) {
    HONE_ASSIGN_OR_RETURN(std::vector<Item> items, ParseScope(0, tok_.size(), true));
    HONE_RETURN_IF_ERROR(CheckHostReferences(items));
    CudaSplit out;
    out.device_source = DevicePrelude();
    out.host_source = HostPrelude(host_defines);
    HONE_RETURN_IF_ERROR(Emit(items, out));
    for (const auto& [name, k] : kernels_) {
      if (!k.has_body) return NotSplit("kernel '" + name + "' is declared but not defined here");
      out.kernels.push_back(name);
      out.templated = out.templated || !k.template_header.empty();
    }
    if (out.kernels.empty()) return NotSplit("no kernel");
    return out;
  }

 private:
  std::string Text(size_t first, size_t last) const {
    return std::string(src_.substr(tok_[first].begin, tok_[last - 1].end - tok_[first].begin));
  }
  std::string Line(size_t first) const {
    return "#line " + std::to_string(tok_[first].line) + " \"" + file_ + "\"\n";
  }

  // The token closing the bracket opened at `open` ((, [, { or <<<).
  Result<size_t> Match(size_t open, size_t last) const {
    static const std::map<std::string_view, std::string_view> pairs = {
        {"(", ")"}, {"[", "]"}, {"{", "}"}, {"<<<", ">>>"}};
    std::vector<std::string_view> want = {pairs.at(tok_[open].text)};
    for (size_t i = open + 1; i < last; ++i) {
      if (tok_[i].kind != TokenKind::kPunct) continue;
      if (auto it = pairs.find(tok_[i].text); it != pairs.end()) {
        want.push_back(it->second);
      } else if (tok_[i].text == want.back()) {
        want.pop_back();
        if (want.empty()) return i;
      } else if (tok_[i].Is(")") || tok_[i].Is("]") || tok_[i].Is("}")) {
        return NotSplit("unbalanced '" + std::string(tok_[i].text) + "' on line " +
                        std::to_string(tok_[i].line));
      }
    }
    return NotSplit("unclosed '" + std::string(tok_[open].text) + "' on line " +
                    std::to_string(tok_[open].line));
  }

  // ---- structure ------------------------------------------------------------

  Result<std::vector<Item>> ParseScope(size_t first, size_t last, bool file_scope) {
    std::vector<Item> items;
    size_t i = first;
    while (i < last) {
      if (tok_[i].kind == TokenKind::kDirective) {
        HONE_RETURN_IF_ERROR(CheckDirective(tok_[i], file_scope));
        items.push_back(Item{i, i + 1});
        ++i;
        continue;
      }
      HONE_ASSIGN_OR_RETURN(Item item, ParseItem(i, last));
      i = item.last;
      items.push_back(std::move(item));
    }
    return items;
  }

  Status CheckDirective(const Token& d, bool file_scope) {
    std::string_view name = DirectiveName(d);
    if (name == "define") {
      if (d.text.find("<<<") != std::string_view::npos ||
          d.text.find("__global__") != std::string_view::npos)
        return NotSplit("a macro launches or declares a kernel (line " + std::to_string(d.line) +
                        ")");
      RecordFunctionMacro(d);
      return Status::Ok();
    }
    if (name == "undef" || name == "pragma") return Status::Ok();
    if (name == "include" && !IncludedHeader(d).empty())
      return file_scope
                 ? Status::Ok()
                 : NotSplit("#include inside a namespace (line " + std::to_string(d.line) + ")");
    return NotSplit("#" + std::string(name) + " at file level (line " + std::to_string(d.line) +
                    ")");
  }

  void RecordFunctionMacro(const Token& d) {
    std::string_view s = d.text.substr(d.text.find("define") + 6);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    size_t n = 0;
    while (n < s.size() && (std::isalnum(static_cast<unsigned char>(s[n])) || s[n] == '_')) ++n;
    if (n < s.size() && s[n] == '(') function_macros_.insert(std::string(s.substr(0, n)));
  }

  // One declaration: to its `;` at depth 0, or to the `}` ending a function
  // body (a class, enum or initialiser goes on to its `;`).
  Result<Item> ParseItem(size_t first, size_t last) {
    Item item{first, first};
    if (tok_[first].IsIdentifier() && function_macros_.count(std::string(tok_[first].text)))
      return NotSplit("a macro declares something at file level (line " +
                      std::to_string(tok_[first].line) + ")");
    if (tok_[first].Is("namespace") ||
        (tok_[first].Is("inline") && first + 1 < last && tok_[first + 1].Is("namespace")))
      return ParseNamespace(first, last);
    bool class_like = false, initialised = false, seen_paren = false;
    for (size_t i = first; i < last; ++i) {
      const Token& t = tok_[i];
      if (t.kind == TokenKind::kDirective)
        return NotSplit("a preprocessor line inside a declaration (line " + std::to_string(t.line) +
                        ")");
      if (t.Is("template") && i + 1 < last && tok_[i + 1].Is("<")) {
        i = SkipAngles(i + 1, last) - 1;  // `template <class T>` is not a class
        continue;
      }
      if (t.Is("extern") && i + 1 < last && tok_[i + 1].kind == TokenKind::kString)
        return NotSplit("extern \"C\" (line " + std::to_string(t.line) + ")");
      if (!seen_paren && (t.Is("struct") || t.Is("class") || t.Is("union") || t.Is("enum")))
        class_like = true;
      initialised = initialised || t.Is("=");
      if (t.Is(";")) {
        item.last = i + 1;
        return Classify(item);
      }
      if (t.Is("(") || t.Is("[") || t.Is("<<<")) {
        seen_paren = seen_paren || t.Is("(");
        HONE_ASSIGN_OR_RETURN(i, Match(i, last));
        continue;
      }
      if (t.Is("{")) {
        HONE_ASSIGN_OR_RETURN(size_t close, Match(i, last));
        if (class_like || initialised) {
          i = close;
          continue;
        }
        item.last = close + 1 < last && tok_[close + 1].Is(";") ? close + 2 : close + 1;
        return Classify(item);
      }
    }
    return NotSplit("a declaration without its end (line " + std::to_string(tok_[first].line) +
                    ")");
  }

  Result<Item> ParseNamespace(size_t first, size_t last) {
    Item item{first, first};
    item.is_namespace = true;
    size_t i = first;
    bool named = false;
    while (i < last && !tok_[i].Is("{")) {
      if (tok_[i].Is("=")) return ParseAlias(first, last);
      named =
          named || (tok_[i].IsIdentifier() && !tok_[i].Is("namespace") && !tok_[i].Is("inline"));
      ++i;
    }
    if (i >= last) return NotSplit("a namespace without its body");
    HONE_ASSIGN_OR_RETURN(size_t close, Match(i, last));
    item.namespace_header = Text(first, i + 1);
    if (!named) ++anonymous_depth_;
    HONE_ASSIGN_OR_RETURN(item.children, ParseScope(i + 1, close, false));
    if (!named) --anonymous_depth_;
    item.last = close + 1;
    return item;
  }

  // `namespace py = pybind11;`
  Result<Item> ParseAlias(size_t first, size_t last) {
    for (size_t i = first; i < last; ++i) {
      if (tok_[i].Is(";")) {
        Item item{first, i + 1};
        return Classify(item);
      }
    }
    return NotSplit("a namespace alias without its ';'");
  }

  // ---- which side -------------------------------------------------------------

  bool Has(const Item& item, size_t head_end, std::string_view word) const {
    for (size_t i = item.first; i < head_end; ++i)
      if (tok_[i].Is(word)) return true;
    return false;
  }
  bool MentionsTorch(const Item& item) const {
    for (size_t i = item.first; i < item.last; ++i)
      if (tok_[i].IsIdentifier() && IsTorchName(tok_[i].text)) return true;
    return false;
  }
  // The first `{` at depth 0 (a body), or `last`.
  size_t HeadEnd(const Item& item) const {
    int depth = 0;
    for (size_t i = item.first; i < item.last; ++i) {
      if (tok_[i].Is("(") || tok_[i].Is("[")) ++depth;
      if (tok_[i].Is(")") || tok_[i].Is("]")) --depth;
      if (depth == 0 && tok_[i].Is("{")) return i;
    }
    return item.last;
  }

  Result<Item> Classify(Item item) {
    size_t head = HeadEnd(item);
    bool global = Has(item, head, "__global__");
    bool device = Has(item, head, "__device__") || Has(item, head, "__constant__") ||
                  Has(item, head, "__managed__") || Has(item, head, "__shared__");
    bool host = Has(item, head, "__host__");
    int line = tok_[item.first].line;
    if (global) {
      if (MentionsTorch(item))
        return NotSplit("a kernel uses torch's types or macros (line " + std::to_string(line) +
                        ")");
      HONE_ASSIGN_OR_RETURN(Kernel k, ParseKernel(item, head));
      HONE_RETURN_IF_ERROR(AddKernel(k, line));
      item.kernel = std::move(k);
      item.side = Side::kDevice;
      return item;
    }
    if (device && MentionsTorch(item))
      return NotSplit("device code uses torch's types or macros (line " + std::to_string(line) +
                      ")");
    if (device && host) {
      bool body = head < item.last;
      bool inline_ish = Has(item, head, "inline") || Has(item, head, "__forceinline__") ||
                        Has(item, head, "static") || Has(item, head, "constexpr") ||
                        Has(item, head, "template") || Has(item, head, "__inline__");
      if (body && !inline_ish)
        return NotSplit("a __host__ __device__ function that is not inline (line " +
                        std::to_string(line) + ")");
      item.side = Side::kBoth;
      return item;
    }
    if (device) {
      RecordDeviceName(item, head);
      item.side = Side::kDevice;
      return item;
    }
    item.side = host ? Side::kHost : UnqualifiedSide(item, head);
    if (item.side == Side::kDevice) RecordDeviceName(item, head);
    return item;
  }

  // Declarations with no CUDA qualifier: types and constants serve both
  // halves, functions and variables the host.
  Side UnqualifiedSide(const Item& item, size_t head) const {
    if (MentionsTorch(item)) return Side::kHost;
    size_t i = SkipAttributes(item.first, head);
    if (i < head && tok_[i].Is("template")) i = SkipAttributes(SkipAngles(i + 1, head), head);
    bool type_like =
        i < head &&
        (tok_[i].Is("struct") || tok_[i].Is("class") || tok_[i].Is("union") || tok_[i].Is("enum") ||
         tok_[i].Is("typedef") || tok_[i].Is("using") || tok_[i].Is("static_assert"));
    if (type_like) {
      // A type with device-only member functions cannot be compiled by gcc.
      bool device_members = false, host_members = false;
      for (size_t j = item.first; j < item.last; ++j) {
        device_members = device_members || tok_[j].Is("__device__");
        host_members = host_members || tok_[j].Is("__host__");
      }
      return device_members && !host_members ? Side::kDevice : Side::kBoth;
    }
    if (Has(item, head, "constexpr")) return Side::kBoth;
    bool function = false;
    for (size_t j = item.first; j < head; ++j) function = function || tok_[j].Is("(");
    if (!function && Has(item, head, "const")) return Side::kBoth;
    return Side::kHost;
  }

  // The first token after leading `__align__(16)`, `alignas(8)` or
  // `__attribute__((...))` groups.
  size_t SkipAttributes(size_t i, size_t end) const {
    while (i + 1 < end && tok_[i + 1].Is("(") &&
           (tok_[i].Is("__align__") || tok_[i].Is("alignas") || tok_[i].Is("__attribute__") ||
            tok_[i].Is("__declspec"))) {
      auto close = Match(i + 1, end);
      if (!close.ok()) return i;
      i = *close + 1;
    }
    return i;
  }

  // The token after the `>` closing the `<` at `open`.
  size_t SkipAngles(size_t open, size_t end) const {
    if (open >= end || !tok_[open].Is("<")) return open;
    int depth = 0;
    for (size_t i = open; i < end; ++i) {
      if (tok_[i].Is("<")) ++depth;
      if (tok_[i].Is(">")) --depth;
      if (tok_[i].Is(">>")) depth -= 2;
      if (tok_[i].Is(">>>")) depth -= 3;
      if (depth <= 0) return i + 1;
    }
    return end;
  }

  // The name a device-only declaration introduces, so that host code naming
  // it is caught: a function's (before its parameters), a variable's (before
  // its `[`, `=` or `;`) or a type's (after its class key).
  void RecordDeviceName(const Item& item, size_t head) {
    for (size_t i = item.first; i + 1 < head; ++i) {
      if (tok_[i].Is("struct") || tok_[i].Is("class") || tok_[i].Is("union")) {
        if (tok_[i + 1].IsIdentifier()) device_names_.insert(std::string(tok_[i + 1].text));
        return;
      }
    }
    size_t end = head;
    if (std::optional<size_t> paren = NameParen(item, head)) {
      end = *paren;
    } else {
      for (size_t i = item.first; i < head; ++i) {
        if (tok_[i].Is("=") || tok_[i].Is("[") || tok_[i].Is(";")) {
          end = i;
          break;
        }
      }
    }
    for (size_t i = end; i-- > item.first;) {
      if (tok_[i].IsIdentifier() && !IsQualifierWord(tok_[i].text)) {
        device_names_.insert(std::string(tok_[i].text));
        return;
      }
    }
  }

  static bool IsQualifierWord(std::string_view w) {
    static const std::set<std::string_view> words = {
        "__device__", "__constant__", "__managed__",  "__shared__",      "__host__",   "__global__",
        "const",      "static",       "inline",       "__forceinline__", "__inline__", "extern",
        "volatile",   "constexpr",    "__restrict__", "__restrict",      "restrict",   "struct",
        "class",      "union",        "enum",         "__noinline__",    "final"};
    return words.count(w) > 0;
  }

  // The `(` of the declared function's parameters: the first at depth 0
  // not belonging to an attribute.
  std::optional<size_t> NameParen(const Item& item, size_t head) const {
    static const std::set<std::string_view> attrs = {
        "__launch_bounds__", "__attribute__", "alignas",          "__align__",    "__declspec",
        "decltype",          "__maxnreg__",   "__cluster_dims__", "__noinline__", "noexcept"};
    for (size_t i = item.first + 1; i < head; ++i) {
      if (tok_[i].Is("<") && tok_[i - 1].Is("template")) {
        i = SkipAngles(i, head) - 1;
        continue;
      }
      if (!tok_[i].Is("(")) continue;
      if (tok_[i - 1].IsIdentifier() && !attrs.count(tok_[i - 1].text)) return i;
      auto close = Match(i, head);
      if (!close.ok()) return std::nullopt;
      i = *close;
    }
    return std::nullopt;
  }

  // ---- kernels ----------------------------------------------------------------

  Result<Kernel> ParseKernel(const Item& item, size_t head) {
    int line = tok_[item.first].line;
    std::optional<size_t> paren = NameParen(item, head);
    if (!paren)
      return NotSplit("a kernel whose name was not found (line " + std::to_string(line) + ")");
    Kernel k;
    k.name = std::string(tok_[*paren - 1].text);
    k.has_body = head < item.last;
    if (anonymous_depth_ > 0)
      return NotSplit("kernel '" + k.name + "' is in an anonymous namespace");
    if (tok_[item.first].Is("template")) HONE_RETURN_IF_ERROR(ParseTemplate(item, head, k));
    HONE_ASSIGN_OR_RETURN(size_t close, Match(*paren, head));
    k.params = close > *paren + 1 ? Text(*paren + 1, close) : "";
    if (k.params == "void") k.params.clear();
    if (k.has_body) HONE_RETURN_IF_ERROR(ParseParamNames(*paren + 1, close, k));
    return k;
  }

  Status ParseTemplate(const Item& item, size_t head, Kernel& k) {
    size_t open = item.first + 1;
    size_t after = SkipAngles(open, head);
    if (after == open + 2) return NotSplit("an explicit specialisation of kernel '" + k.name + "'");
    k.template_header = Text(item.first, after);
    std::vector<std::string> names;
    for (auto [b, e] : SplitTopLevel(open + 1, after - 1)) {
      std::string name;
      bool pack = false;
      for (size_t i = b; i < e && !tok_[i].Is("="); ++i) {
        if (tok_[i].Is("template"))
          return NotSplit("a template template parameter of '" + k.name + "'");
        pack = pack || tok_[i].Is("...");
        if (tok_[i].IsIdentifier()) name = std::string(tok_[i].text);
      }
      if (name.empty() || name == "typename" || name == "class")
        return NotSplit("an unnamed template parameter of '" + k.name + "'");
      names.push_back(name + (pack ? "..." : ""));
    }
    k.template_args = "<";
    for (size_t i = 0; i < names.size(); ++i) k.template_args += (i ? ", " : "") + names[i];
    k.template_args += ">";
    return Status::Ok();
  }

  // [begin, end) ranges between the top-level commas of tokens [first, last).
  std::vector<std::pair<size_t, size_t>> SplitTopLevel(size_t first, size_t last) const {
    std::vector<std::pair<size_t, size_t>> out;
    int depth = 0;
    size_t start = first;
    for (size_t i = first; i < last; ++i) {
      const Token& t = tok_[i];
      if (t.Is("(") || t.Is("[") || t.Is("{") || t.Is("<")) ++depth;
      if (t.Is(")") || t.Is("]") || t.Is("}") || t.Is(">")) --depth;
      if (t.Is(">>")) depth -= 2;
      if (depth == 0 && t.Is(",")) {
        out.emplace_back(start, i);
        start = i + 1;
      }
    }
    if (start < last) out.emplace_back(start, last);
    return out;
  }

  Status ParseParamNames(size_t first, size_t last, Kernel& k) {
    if (k.params.empty()) return Status::Ok();
    for (auto [b, e] : SplitTopLevel(first, last)) {
      std::string name;
      int identifiers = 0;
      bool pack = false;
      for (size_t i = b; i < e; ++i) {
        if (tok_[i].Is("=")) return NotSplit("kernel '" + k.name + "' has a default argument");
        if (tok_[i].Is("[")) break;
        pack = pack || tok_[i].Is("...");
        if (tok_[i].IsIdentifier() && !IsQualifierWord(tok_[i].text)) {
          ++identifiers;
          name = std::string(tok_[i].text);
        }
      }
      if (identifiers < 2 || IsBuiltinType(name))
        return NotSplit("kernel '" + k.name + "' has an unnamed parameter");
      k.arg_names.push_back(name + (pack ? "..." : ""));
    }
    return Status::Ok();
  }

  static bool IsBuiltinType(std::string_view w) {
    static const std::set<std::string_view> words = {"int",    "float", "double", "char",
                                                     "bool",   "long",  "short",  "unsigned",
                                                     "signed", "void",  "auto"};
    return words.count(w) > 0;
  }

  Status AddKernel(const Kernel& k, int line) {
    auto it = kernels_.find(k.name);
    if (it == kernels_.end()) {
      kernels_[k.name] = k;
      return Status::Ok();
    }
    if (it->second.has_body && k.has_body)
      return NotSplit("kernel '" + k.name + "' is defined twice (line " + std::to_string(line) +
                      ")");
    it->second.has_body = it->second.has_body || k.has_body;
    if (!k.template_header.empty()) it->second.template_header = k.template_header;
    return Status::Ok();
  }

  // ---- host code ----------------------------------------------------------------

  struct Launch {
    size_t name_token;     // the kernel's name
    size_t replace_first;  // first token replaced (qualifier or name)
    size_t replace_last;   // the launch's `(`
    std::string replacement;
  };

  // Every `k<<<...>>>(` in tokens [first, last).
  Result<std::vector<Launch>> FindLaunches(size_t first, size_t last) const {
    std::vector<Launch> out;
    for (size_t j = first; j < last; ++j) {
      if (!tok_[j].Is("<<<")) continue;
      HONE_ASSIGN_OR_RETURN(Launch l, ParseLaunch(first, j, last));
      out.push_back(std::move(l));
    }
    return out;
  }

  Result<Launch> ParseLaunch(size_t first, size_t open, size_t last) const {
    std::string where = " (line " + std::to_string(tok_[open].line) + ")";
    size_t k = open;  // walks back over `name<targs>` and `ns::`
    std::string targs;
    if (k > first && (tok_[k - 1].Is(">") || tok_[k - 1].Is(">>"))) {
      int depth = 0;
      size_t i = k;
      while (i-- > first) {
        if (tok_[i].Is(">")) ++depth;
        if (tok_[i].Is(">>")) depth += 2;
        if (tok_[i].Is("<")) --depth;
        if (depth == 0) break;
      }
      if (depth != 0 || i == first) return NotSplit("a launch whose kernel was not found" + where);
      targs = Text(i, k);
      k = i;
    }
    if (k == first || !tok_[k - 1].IsIdentifier() || !kernels_.count(std::string(tok_[k - 1].text)))
      return NotSplit("a launch of something not defined here as a kernel" + where);
    Launch l;
    l.name_token = k - 1;
    size_t q = k - 1;
    while (q >= first + 2 && tok_[q - 1].Is("::") && tok_[q - 2].IsIdentifier()) q -= 2;
    if (q > first && tok_[q - 1].Is("::")) --q;
    l.replace_first = q;
    HONE_ASSIGN_OR_RETURN(size_t close, Match(open, last));
    auto config = SplitTopLevel(open + 1, close);
    if (config.size() < 2 || config.size() > 4)
      return NotSplit("a launch configuration of " + std::to_string(config.size()) + " parts" +
                      where);
    if (close + 1 >= last || !tok_[close + 1].Is("("))
      return NotSplit("a launch without its arguments" + where);
    l.replace_last = close + 1;
    bool no_args = close + 2 < last && tok_[close + 2].Is(")");
    std::string qualifier = q < k - 1 ? Text(q, k - 1) : "";
    l.replacement =
        qualifier + std::string(kLauncherPrefix) + std::string(tok_[k - 1].text) + targs + "(";
    for (size_t i = 0; i < 4; ++i)
      l.replacement +=
          (i ? ", " : "") + (i < config.size() ? Text(config[i].first, config[i].second) : "0");
    l.replacement += no_args ? "" : ", ";
    return l;
  }

  // Host code may name a kernel or device symbol only to launch it: a kernel
  // passed to cudaFuncSetAttribute or cudaLaunchKernel, or a __constant__
  // written with cudaMemcpyToSymbol, needs the device half's symbol.
  Status CheckHostReferences(const std::vector<Item>& items) const {
    for (const Item& item : items) {
      if (item.is_namespace) {
        HONE_RETURN_IF_ERROR(CheckHostReferences(item.children));
        continue;
      }
      if (item.side == Side::kDevice || tok_[item.first].kind == TokenKind::kDirective) continue;
      HONE_ASSIGN_OR_RETURN(std::vector<Launch> launches, FindLaunches(item.first, item.last));
      if (item.side == Side::kBoth && !launches.empty())
        return NotSplit("a launch in code both halves need (line " +
                        std::to_string(tok_[item.first].line) + ")");
      std::set<size_t> launched;
      for (const auto& l : launches) launched.insert(l.name_token);
      for (size_t i = item.first; i < item.last; ++i) {
        const Token& t = tok_[i];
        // nvcc's host pass defines __CUDACC__ and gcc does not: code that
        // tests it would change. (__CUDA_ARCH__ is undefined in both.)
        if (t.text.find("__CUDACC") != std::string_view::npos ||
            t.text.find("__NVCC__") != std::string_view::npos)
          return NotSplit("host code tests __CUDACC__ or __NVCC__ (line " + std::to_string(t.line) +
                          ")");
        if (!t.IsIdentifier() || launched.count(i)) continue;
        std::string id(t.text);
        if (kernels_.count(id) || device_names_.count(id))
          return NotSplit("host code names device symbol '" + id +
                          "' other than to launch it (line " + std::to_string(t.line) + ")");
      }
    }
    return Status::Ok();
  }

  std::string RewriteLaunches(const Item& item) const {
    auto launches = FindLaunches(item.first, item.last);  // checked in CheckHostReferences
    std::string out;
    size_t at = tok_[item.first].begin;
    for (const auto& l : *launches) {
      out += src_.substr(at, tok_[l.replace_first].begin - at);
      out += l.replacement;
      at = tok_[l.replace_last].end;
    }
    out += src_.substr(at, tok_[item.last - 1].end - at);
    return out;
  }

  // ---- emission -----------------------------------------------------------------

  static std::string LauncherSignature(const Kernel& k) {
    std::string s = k.template_header.empty() ? "" : k.template_header + "\n";
    s += "void " + std::string(kLauncherPrefix) + k.name +
         "(dim3 hone_grid, dim3 hone_block, size_t hone_shmem, cudaStream_t hone_stream";
    if (!k.params.empty()) s += ", " + k.params;
    return s + ")";
  }

  static std::string LauncherDefinition(const Kernel& k) {
    std::string call =
        k.name + k.template_args + "<<<hone_grid, hone_block, hone_shmem, hone_stream>>>(";
    for (size_t i = 0; i < k.arg_names.size(); ++i) call += (i ? ", " : "") + k.arg_names[i];
    return LauncherSignature(k) + " {\n  " + call + ");\n}\n";
  }

  Status Emit(const std::vector<Item>& items, CudaSplit& out) {
    for (const Item& item : items) {
      if (item.is_namespace) {
        out.device_source += item.namespace_header + "\n";
        out.host_source += item.namespace_header + "\n";
        HONE_RETURN_IF_ERROR(Emit(item.children, out));
        out.device_source += "}\n";
        out.host_source += "}\n";
        continue;
      }
      if (tok_[item.first].kind == TokenKind::kDirective) {
        EmitDirective(tok_[item.first], out);
        continue;
      }
      EmitItem(item, out);
    }
    return Status::Ok();
  }

  void EmitDirective(const Token& d, CudaSplit& out) {
    std::string text = Line(IndexOf(d)) + std::string(d.text) + "\n";
    std::string_view header = IncludedHeader(d);
    if (!header.empty() && IsTorchHeader(header)) {
      out.host_source += text;
    } else if (!header.empty() && IsDeviceHeader(header)) {
      out.device_source += text;
    } else {
      out.device_source += text;
      out.host_source += text;
    }
  }

  size_t IndexOf(const Token& t) const { return static_cast<size_t>(&t - tok_.data()); }

  void EmitItem(const Item& item, CudaSplit& out) {
    std::string line = Line(item.first);
    if (item.side != Side::kHost) out.device_source += line + Text(item.first, item.last) + "\n";
    if (item.side != Side::kDevice) out.host_source += line + RewriteLaunches(item) + "\n";
    if (!item.kernel) return;
    const Kernel& k = *item.kernel;  // a prototype's parameter names may differ: its own
    if (!declared_.count(k.name)) {
      declared_.insert(k.name);
      out.host_source += LauncherSignature(k) + ";\n";
    }
    if (k.has_body) out.device_source += LauncherDefinition(k);
  }

  std::string DevicePrelude() const {
    return "// hone: the device half of " + file_ +
           " (its kernels and their launchers), built without torch's headers.\n"
           "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
           "#include <cstddef>\n#include <cstdint>\n#include <cfloat>\n#include <climits>\n"
           "#include <cmath>\n#include <cstdio>\n#include <algorithm>\n#include <limits>\n"
           "#include <type_traits>\n#include <utility>\n";
  }

  std::string HostPrelude(const std::vector<std::string>& defines) const {
    std::string s = "// hone: the host half of " + file_ +
                    ", its launches calling the device half's launchers.\n"
                    "#include <torch/extension.h>\n";
    for (const auto& d : defines) {
      if (!d.empty() && d[0] == '!') {
        s += "#undef " + d.substr(1) + "\n";
        continue;
      }
      size_t eq = d.find('=');
      s += "#define " +
           (eq == std::string::npos ? d + " 1" : d.substr(0, eq) + " " + d.substr(eq + 1)) + "\n";
    }
    return s + "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n";
  }

  std::string_view src_;
  std::vector<Token> tok_;
  std::string file_;
  std::map<std::string, Kernel> kernels_;
  std::set<std::string> device_names_;
  std::set<std::string> function_macros_;
  std::set<std::string> declared_;
  int anonymous_depth_ = 0;
};

}  // namespace

Result<CudaSplit> SplitCudaSource(std::string_view source, const std::string& file_name,
                                  const std::vector<std::string>& host_defines) {
  if (source.find(kLauncherPrefix) != std::string_view::npos)
    return NotSplit("the source already uses the name prefix " + std::string(kLauncherPrefix));
  auto tokens = Tokenize(source);
  if (!tokens.ok()) return NotSplit(tokens.status().message());
  if (tokens->empty()) return NotSplit("an empty source");
  return Splitter(source, std::move(*tokens), file_name).Run(host_defines);
}

Result<std::string> LauncherInstantiations(std::string_view nm_output) {
  std::string out;
  size_t pos = 0;
  while (pos < nm_output.size()) {
    size_t nl = nm_output.find('\n', pos);
    if (nl == std::string_view::npos) nl = nm_output.size();
    std::string_view line = nm_output.substr(pos, nl - pos);
    pos = nl + 1;
    size_t at = line.find(kLauncherPrefix);
    size_t sig = line.find_first_not_of(" \tU");
    if (at == std::string_view::npos || sig == std::string_view::npos) continue;
    std::string_view s = line.substr(sig);
    if (s.find('<') == std::string_view::npos || s.find('<') > s.find('('))
      continue;  // not a template
    for (std::string_view bad : {"(anonymous namespace)", "{lambda", "c10::", "at::", "torch::"})
      if (s.find(bad) != std::string_view::npos)
        return NotSplit("a launcher instantiated with a type the device half lacks: " +
                        std::string(s));
    out += "template " + std::string(s) + ";\n";
  }
  return out;
}

}  // namespace hone
