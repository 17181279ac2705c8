#include "build/cuda_split.h"

#include <set>

#include "build/cuda_split_parse.h"
#include "build/cxx_tokens.h"

namespace hone {
namespace cuda_split {
namespace {

constexpr std::string_view kLauncherPrefix = "hone_launch_";

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

// The writing half of the split: the host code's launches rewritten to
// launcher calls, and both halves emitted from the parsed items.
class Splitter : public SourceParser {
 public:
  using SourceParser::SourceParser;

  Result<CudaSplit> Run(const std::vector<std::string>& host_defines) {
    HONE_ASSIGN_OR_RETURN(std::vector<Item> items, ParseFile());
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

  std::set<std::string> declared_;
};

}  // namespace
}  // namespace cuda_split

Result<CudaSplit> SplitCudaSource(std::string_view source, const std::string& file_name,
                                  const std::vector<std::string>& host_defines) {
  using cuda_split::kLauncherPrefix;
  using cuda_split::NotSplit;
  if (source.find(kLauncherPrefix) != std::string_view::npos)
    return NotSplit("the source already uses the name prefix " + std::string(kLauncherPrefix));
  auto tokens = Tokenize(source);
  if (!tokens.ok()) return NotSplit(tokens.status().message());
  if (tokens->empty()) return NotSplit("an empty source");
  return cuda_split::Splitter(source, std::move(*tokens), file_name).Run(host_defines);
}

Result<std::string> LauncherInstantiations(std::string_view nm_output) {
  using cuda_split::kLauncherPrefix;
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
        return cuda_split::NotSplit("a launcher instantiated with a type the device half lacks: " +
                                    std::string(s));
    out += "template " + std::string(s) + ";\n";
  }
  return out;
}

}  // namespace hone
