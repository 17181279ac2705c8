// The reading half of SplitCudaSource (build/cuda_split.h): a tokenized CUDA
// source (build/cxx_tokens.h) read into its file-level items (declarations,
// directives, namespaces with theirs), each marked with the side of the split
// it belongs to (device, host or both), and its kernels with their template
// headers and parameters. Names that only device code may use are recorded,
// so that the writing half can refuse host code that names them.
//
// Conservative as the split is: whatever it does not understand is
// Status::Invalid (NotSplit) with the reason, and the file is built whole.
// One parser per source, used once by one thread; no shared state.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "build/cxx_tokens.h"
#include "core/status.h"

namespace hone::cuda_split {

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

// Status::Invalid(why): the source is built whole.
Status NotSplit(const std::string& why);

class SourceParser {
 public:
  SourceParser(std::string_view src, std::vector<Token> tokens, std::string file)
      : src_(src), tok_(std::move(tokens)), file_(std::move(file)) {}

  // The file's items in order; fills kernels_ and device_names_.
  Result<std::vector<Item>> ParseFile() { return ParseScope(0, tok_.size(), true); }

 protected:
  std::string Text(size_t first, size_t last) const;
  std::string Line(size_t first) const;
  // The token closing the bracket opened at `open` ((, [, { or <<<).
  Result<size_t> Match(size_t open, size_t last) const;
  // [begin, end) ranges between the top-level commas of tokens [first, last).
  std::vector<std::pair<size_t, size_t>> SplitTopLevel(size_t first, size_t last) const;

  std::string_view src_;
  std::vector<Token> tok_;
  std::string file_;
  std::map<std::string, Kernel> kernels_;
  std::set<std::string> device_names_;

 private:
  // Structure: items and namespaces.
  Result<std::vector<Item>> ParseScope(size_t first, size_t last, bool file_scope);
  Status CheckDirective(const Token& d, bool file_scope);
  void RecordFunctionMacro(const Token& d);
  Result<Item> ParseItem(size_t first, size_t last);
  Result<Item> ParseNamespace(size_t first, size_t last);
  Result<Item> ParseAlias(size_t first, size_t last);

  // Which side of the split an item belongs to.
  bool Has(const Item& item, size_t head_end, std::string_view word) const;
  bool MentionsTorch(const Item& item) const;
  size_t HeadEnd(const Item& item) const;
  Result<Item> Classify(Item item);
  Side UnqualifiedSide(const Item& item, size_t head) const;
  size_t SkipAttributes(size_t i, size_t end) const;
  size_t SkipAngles(size_t open, size_t end) const;
  void RecordDeviceName(const Item& item, size_t head);
  static bool IsQualifierWord(std::string_view w);
  std::optional<size_t> NameParen(const Item& item, size_t head) const;

  // Kernels: names, template headers, parameters.
  Result<Kernel> ParseKernel(const Item& item, size_t head);
  Status ParseTemplate(const Item& item, size_t head, Kernel& k);
  Status ParseParamNames(size_t first, size_t last, Kernel& k);
  static bool IsBuiltinType(std::string_view w);
  Status AddKernel(const Kernel& k, int line);

  std::set<std::string> function_macros_;
  int anonymous_depth_ = 0;
};

}  // namespace hone::cuda_split
