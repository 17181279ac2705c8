#include "build/cuda_split_parse.h"

namespace hone::cuda_split {
namespace {

// Identifiers that mean torch (or pybind11) is in use.
bool IsTorchName(std::string_view id) {
  static const std::set<std::string_view> names = {
      "torch", "at", "c10", "pybind11", "py", "Tensor", "PYBIND11_MODULE", "TORCH_EXTENSION_NAME"};
  return names.count(id) || id.starts_with("TORCH_") || id.starts_with("AT_") ||
         id.starts_with("C10_");
}

}  // namespace

Status NotSplit(const std::string& why) { return Status::Invalid(why); }

std::string SourceParser::Text(size_t first, size_t last) const {
  return std::string(src_.substr(tok_[first].begin, tok_[last - 1].end - tok_[first].begin));
}

std::string SourceParser::Line(size_t first) const {
  return "#line " + std::to_string(tok_[first].line) + " \"" + file_ + "\"\n";
}

Result<size_t> SourceParser::Match(size_t open, size_t last) const {
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

Result<std::vector<Item>> SourceParser::ParseScope(size_t first, size_t last, bool file_scope) {
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

Status SourceParser::CheckDirective(const Token& d, bool file_scope) {
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
  return NotSplit("#" + std::string(name) + " at file level (line " + std::to_string(d.line) + ")");
}

void SourceParser::RecordFunctionMacro(const Token& d) {
  std::string_view s = d.text.substr(d.text.find("define") + 6);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  size_t n = 0;
  while (n < s.size() && (std::isalnum(static_cast<unsigned char>(s[n])) || s[n] == '_')) ++n;
  if (n < s.size() && s[n] == '(') function_macros_.insert(std::string(s.substr(0, n)));
}

// One declaration: to its `;` at depth 0, or to the `}` ending a function
// body (a class, enum or initialiser goes on to its `;`).
Result<Item> SourceParser::ParseItem(size_t first, size_t last) {
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
  return NotSplit("a declaration without its end (line " + std::to_string(tok_[first].line) + ")");
}

Result<Item> SourceParser::ParseNamespace(size_t first, size_t last) {
  Item item{first, first};
  item.is_namespace = true;
  size_t i = first;
  bool named = false;
  while (i < last && !tok_[i].Is("{")) {
    if (tok_[i].Is("=")) return ParseAlias(first, last);
    named = named || (tok_[i].IsIdentifier() && !tok_[i].Is("namespace") && !tok_[i].Is("inline"));
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
Result<Item> SourceParser::ParseAlias(size_t first, size_t last) {
  for (size_t i = first; i < last; ++i) {
    if (tok_[i].Is(";")) {
      Item item{first, i + 1};
      return Classify(item);
    }
  }
  return NotSplit("a namespace alias without its ';'");
}

// ---- which side -------------------------------------------------------------

bool SourceParser::Has(const Item& item, size_t head_end, std::string_view word) const {
  for (size_t i = item.first; i < head_end; ++i)
    if (tok_[i].Is(word)) return true;
  return false;
}

bool SourceParser::MentionsTorch(const Item& item) const {
  for (size_t i = item.first; i < item.last; ++i)
    if (tok_[i].IsIdentifier() && IsTorchName(tok_[i].text)) return true;
  return false;
}

// The first `{` at depth 0 (a body), or `last`.
size_t SourceParser::HeadEnd(const Item& item) const {
  int depth = 0;
  for (size_t i = item.first; i < item.last; ++i) {
    if (tok_[i].Is("(") || tok_[i].Is("[")) ++depth;
    if (tok_[i].Is(")") || tok_[i].Is("]")) --depth;
    if (depth == 0 && tok_[i].Is("{")) return i;
  }
  return item.last;
}

Result<Item> SourceParser::Classify(Item item) {
  size_t head = HeadEnd(item);
  bool global = Has(item, head, "__global__");
  bool device = Has(item, head, "__device__") || Has(item, head, "__constant__") ||
                Has(item, head, "__managed__") || Has(item, head, "__shared__");
  bool host = Has(item, head, "__host__");
  int line = tok_[item.first].line;
  if (global) {
    if (MentionsTorch(item))
      return NotSplit("a kernel uses torch's types or macros (line " + std::to_string(line) + ")");
    HONE_ASSIGN_OR_RETURN(Kernel k, ParseKernel(item, head));
    HONE_RETURN_IF_ERROR(AddKernel(k, line));
    item.kernel = std::move(k);
    item.side = Side::kDevice;
    return item;
  }
  if (device && MentionsTorch(item))
    return NotSplit("device code uses torch's types or macros (line " + std::to_string(line) + ")");
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
Side SourceParser::UnqualifiedSide(const Item& item, size_t head) const {
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
size_t SourceParser::SkipAttributes(size_t i, size_t end) const {
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
size_t SourceParser::SkipAngles(size_t open, size_t end) const {
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
void SourceParser::RecordDeviceName(const Item& item, size_t head) {
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

bool SourceParser::IsQualifierWord(std::string_view w) {
  static const std::set<std::string_view> words = {
      "__device__", "__constant__", "__managed__",  "__shared__",      "__host__",   "__global__",
      "const",      "static",       "inline",       "__forceinline__", "__inline__", "extern",
      "volatile",   "constexpr",    "__restrict__", "__restrict",      "restrict",   "struct",
      "class",      "union",        "enum",         "__noinline__",    "final"};
  return words.count(w) > 0;
}

// The `(` of the declared function's parameters: the first at depth 0
// not belonging to an attribute.
std::optional<size_t> SourceParser::NameParen(const Item& item, size_t head) const {
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

Result<Kernel> SourceParser::ParseKernel(const Item& item, size_t head) {
  int line = tok_[item.first].line;
  std::optional<size_t> paren = NameParen(item, head);
  if (!paren)
    return NotSplit("a kernel whose name was not found (line " + std::to_string(line) + ")");
  Kernel k;
  k.name = std::string(tok_[*paren - 1].text);
  k.has_body = head < item.last;
  if (anonymous_depth_ > 0) return NotSplit("kernel '" + k.name + "' is in an anonymous namespace");
  if (tok_[item.first].Is("template")) HONE_RETURN_IF_ERROR(ParseTemplate(item, head, k));
  HONE_ASSIGN_OR_RETURN(size_t close, Match(*paren, head));
  k.params = close > *paren + 1 ? Text(*paren + 1, close) : "";
  if (k.params == "void") k.params.clear();
  if (k.has_body) HONE_RETURN_IF_ERROR(ParseParamNames(*paren + 1, close, k));
  return k;
}

Status SourceParser::ParseTemplate(const Item& item, size_t head, Kernel& k) {
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

std::vector<std::pair<size_t, size_t>> SourceParser::SplitTopLevel(size_t first,
                                                                   size_t last) const {
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

Status SourceParser::ParseParamNames(size_t first, size_t last, Kernel& k) {
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

bool SourceParser::IsBuiltinType(std::string_view w) {
  static const std::set<std::string_view> words = {"int",    "float", "double", "char",
                                                   "bool",   "long",  "short",  "unsigned",
                                                   "signed", "void",  "auto"};
  return words.count(w) > 0;
}

Status SourceParser::AddKernel(const Kernel& k, int line) {
  auto it = kernels_.find(k.name);
  if (it == kernels_.end()) {
    kernels_[k.name] = k;
    return Status::Ok();
  }
  if (it->second.has_body && k.has_body)
    return NotSplit("kernel '" + k.name + "' is defined twice (line " + std::to_string(line) + ")");
  it->second.has_body = it->second.has_body || k.has_body;
  if (!k.template_header.empty()) it->second.template_header = k.template_header;
  return Status::Ok();
}

}  // namespace hone::cuda_split
