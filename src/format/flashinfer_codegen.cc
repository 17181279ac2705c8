#include "format/flashinfer_codegen.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "core/fs.h"
#include "core/hash.h"
#include "core/json_text.h"
#include "core/paths.h"

namespace hone::flashinfer {

namespace {

using json = nlohmann::ordered_json;

// The folder of the format's generated files under the cache.
constexpr const char* kCacheFolder = "formats/flashinfer-trace";

// A Python string literal of any text (JSON's escapes are Python's).
std::string PyString(const std::string& text) { return JsonText(nlohmann::json(text)); }

json AxesJson(const Definition& def) {
  json axes = json::array();
  for (const Axis& a : def.axes) {
    json spec;
    switch (a.kind) {
      case Axis::Kind::kConst:
        spec = {{"type", "const"}, {"value", a.value}};
        break;
      case Axis::Kind::kVar:
        spec = {{"type", "var"}};
        break;
      case Axis::Kind::kExpr:
        spec = {{"type", "expr"}, {"expression", a.expression}};
        break;
    }
    axes.push_back(json::array({a.name, spec}));
  }
  return axes;
}

json TensorsJson(const std::vector<TensorSpec>& tensors) {
  json out = json::array();
  for (const TensorSpec& t : tensors) {
    json spec = {{"dtype", t.dtype}};
    spec["shape"] = t.scalar ? json(nullptr) : json(t.shape);
    out.push_back(json::array({t.name, spec}));
  }
  return out;
}

json DefinitionJson(const Definition& def) {
  json out = {{"name", def.name},
              {"op_type", def.op_type},
              {"axes", AxesJson(def)},
              {"inputs", TensorsJson(def.inputs)},
              {"outputs", TensorsJson(def.outputs)}};
  // Only where there is one: the JSON of every other definition (and so the
  // hashes of their generated files) stays as it was.
  if (!def.custom_inputs_entrypoint.empty())
    out["custom_inputs_entrypoint"] = def.custom_inputs_entrypoint;
  return out;
}

json WorkloadJson(const Workload& w) {
  json axes = json::object(), inputs = json::object();
  for (const auto& [name, value] : w.axes) axes[name] = value;
  for (const auto& [name, s] : w.inputs) {
    switch (s.kind) {
      case InputSource::Kind::kRandom:
        inputs[name] = {{"type", "random"}};
        break;
      case InputSource::Kind::kScalar:
        inputs[name] = {{"type", "scalar"}, {"value", json::parse(s.value_json)}};
        break;
      case InputSource::Kind::kSafetensors:
        inputs[name] = {{"type", "safetensors"}, {"path", s.path}, {"tensor_key", s.tensor_key}};
        break;
      case InputSource::Kind::kCustom:
        inputs[name] = {{"type", "custom"}};
        break;
    }
  }
  return {{"uuid", w.uuid}, {"axes", axes}, {"inputs", inputs}};
}

Result<std::string> Helpers() {
  HONE_ASSIGN_OR_RETURN(std::filesystem::path dir, FindPythonDir());
  auto text = ReadFile(dir / "hone_flashinfer.py");
  if (!text.ok()) return Status::Io((dir / "hone_flashinfer.py").string() + ": cannot read");
  return std::string(kHelpersMarker) + "\n" + *text;
}

std::string ShapeText(const TensorSpec& t) {
  if (t.scalar) return "a Python number";
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + t.shape[i];
  return s + "]";
}

// What the prompt and `hone task show` say of the definition.
std::string DescriptionText(const Definition& def, const Workload& w) {
  std::string out = "FlashInfer-Trace definition " + def.name;
  if (!def.op_type.empty()) out += " (" + def.op_type + ")";
  out += ", workload " + WorkloadLabel(w) + ".";
  if (!def.description.empty()) out += " " + def.description;
  out += "\nAxes:";
  for (const Axis& a : def.axes) {
    out += " " + a.name + "=";
    if (a.kind == Axis::Kind::kConst) out += std::to_string(a.value) + " (const)";
    if (a.kind == Axis::Kind::kExpr) out += a.expression + " (expr)";
    if (a.kind == Axis::Kind::kVar)
      for (const auto& [name, value] : w.axes)
        if (name == a.name) out += std::to_string(value) + " (var)";
  }
  out += "\nInputs, in calling order:";
  for (const TensorSpec& t : def.inputs)
    out += "\n  " + t.name + ": " + t.dtype + " " + ShapeText(t);
  out += "\nOutputs:";
  for (const TensorSpec& t : def.outputs)
    out += "\n  " + t.name + ": " + t.dtype + " " + ShapeText(t);
  if (!def.constraints.empty()) {
    out += "\nConstraints:";
    for (const auto& c : def.constraints) out += "\n  " + c;
  }
  return out;
}

json TaskInfo(const Definition& def, const Workload& w) {
  json info = {{"name", def.name},
               {"category", def.op_type.empty() ? "flashinfer-trace" : def.op_type},
               {"description", DescriptionText(def, w)},
               {"format", "flashinfer-trace"}};
  json inputs = json::array(), outputs = json::array();
  for (const TensorSpec& t : def.inputs) inputs.push_back(t.name);
  for (const TensorSpec& t : def.outputs) outputs.push_back(t.name);
  info["inputs"] = inputs;
  info["outputs"] = outputs;
  // FlashInfer-Bench's defaults unless the workload (SOL-ExecBench) says.
  json tol = {{"atol", w.tolerance.atol.value_or(1e-2)}, {"rtol", w.tolerance.rtol.value_or(1e-2)}};
  if (w.tolerance.required_matched_ratio)
    tol["required_matched_ratio"] = *w.tolerance.required_matched_ratio;
  info["tolerance"] = tol;
  // The format's speedup is against the reference; torch.compile of a
  // reference written as Python loops can take minutes per workload.
  info["baselines"] = "eager";
  return info;
}

Status WriteOnce(const std::filesystem::path& file, const std::string& content) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(file, ec)) return Status::Ok();
  std::filesystem::create_directories(file.parent_path(), ec);
  return WriteFileAtomic(file, content);
}

Result<std::filesystem::path> CacheFolder(const std::filesystem::path& cache, const char* kind,
                                          const std::string& hash) {
  return cache / kCacheFolder / kind / hash.substr(0, 20);
}

// ---- solutions

bool IsCudaSource(const std::string& path) {
  auto ext = std::filesystem::path(path).extension().string();
  return ext == ".cu" || ext == ".cuh";
}

bool IsCompiledSource(const std::string& path) {
  auto ext = std::filesystem::path(path).extension().string();
  return ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c";
}

struct Param {
  std::string type, name;
  bool pointer() const { return type.find('*') != std::string::npos; }
};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The parameters of `symbol`'s definition in C++ source, or nullopt.
std::optional<std::vector<Param>> Signature(const std::string& source, const std::string& symbol) {
  std::regex decl("\\b" + symbol + "\\s*\\(([^)]*)\\)\\s*\\{");
  std::smatch m;
  if (!std::regex_search(source, m, decl)) return std::nullopt;
  std::vector<Param> params;
  std::stringstream list(m[1].str());
  for (std::string p; std::getline(list, p, ',');) {
    p = Trim(p);
    if (p.empty() || p == "void") continue;
    size_t split = p.find_last_of(" *&");
    if (split == std::string::npos) return std::nullopt;
    params.push_back({Trim(p.substr(0, split + 1)), Trim(p.substr(split + 1))});
  }
  return params;
}

bool IsHeader(const std::string& path) {
  auto ext = std::filesystem::path(path).extension().string();
  return ext == ".h" || ext == ".cuh" || ext == ".hpp" || ext == ".hh";
}

// The solution's sources as one translation unit (hone builds one file, a
// private copy): headers first, then the other sources, the entry last,
// each under a #line naming it so that errors name the solution's files;
// an #include of one of its headers is dropped (inlined above).
std::string InlinedSources(const Solution& s) {
  std::vector<const SourceFile*> order;
  for (const SourceFile& f : s.sources)
    if (IsHeader(f.path)) order.push_back(&f);
  for (const SourceFile& f : s.sources)
    if (!IsHeader(f.path) && f.path != s.entry_file && IsCompiledSource(f.path))
      order.push_back(&f);
  order.push_back(s.EntrySource());
  std::string out;
  for (const SourceFile* f : order) {
    std::string text = f->content;
    for (const SourceFile& h : s.sources) {
      if (!IsHeader(h.path)) continue;
      std::regex include("#\\s*include\\s*\"" +
                         std::regex_replace(h.path, std::regex("[.]"), "\\.") + "\"");
      text = std::regex_replace(text, include, "/* hone: " + h.path + " inlined above */");
    }
    out +=
        "#line 1 \"" + f->path + "\"\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n");
  }
  return out + "#line 1 \"hone-generated\"\n";
}

// Where each var axis can be read at run time: input i, dimension d.
std::map<std::string, std::pair<size_t, size_t>> AxisSources(const Definition& def) {
  std::map<std::string, std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < def.inputs.size(); ++i)
    for (size_t d = 0; d < def.inputs[i].shape.size(); ++d)
      out.emplace(def.inputs[i].shape[d], std::make_pair(i, d));
  return out;
}

Result<std::string> AxisArgument(const Definition& def, const Param& p, const std::string& where) {
  const Axis* a = def.FindAxis(p.name);
  if (!a || p.pointer())
    return Status::Invalid(where + ": parameter '" + p.type + " " + p.name +
                           "' is neither a tensor in the definition's order, an axis by name, "
                           "nor a stream");
  if (a->kind == Axis::Kind::kConst) return std::to_string(a->value);
  auto sources = AxisSources(def);
  auto it = sources.find(a->name);
  if (a->kind == Axis::Kind::kExpr || it == sources.end())
    return Status::Invalid(where + ": axis parameter '" + p.name +
                           "' cannot be read from the inputs' shapes");
  return fmt::format("static_cast<{}>(a->inputs[{}].shape[{}])", p.type, it->second.first,
                     it->second.second);
}

// hone_forward calling a solution's function through hone's C contract:
// `int f(const hone_args*)`, or one pointer per tensor (inputs, then
// outputs), then any of the definition's axes by name and, on CUDA, a
// cudaStream_t.
Result<std::string> NativeShim(const Solution& s, const Definition& def, bool cuda) {
  const std::string where = s.file.string() + ": spec.entry_point " + s.entry_symbol;
  const SourceFile& entry = *s.EntrySource();
  std::string head = "// hone: FlashInfer-Trace solution '" + s.name +
                     "' through hone's C contract (generated)\n#include <hone/kernel.h>\n" +
                     InlinedSources(s);
  if (s.entry_symbol == "hone_forward") return head;
  auto params = Signature(entry.content, s.entry_symbol);
  if (!params)
    return Status::Invalid(where + ": no definition of this function found in " + s.entry_file);
  if (params->size() == 1 && (*params)[0].type.find("hone_args") != std::string::npos)
    return head + "HONE_EXPORT int hone_forward(const hone_args* a) { return " + s.entry_symbol +
           "(a); }\n";
  size_t tensors = def.inputs.size() + def.outputs.size();
  if (params->size() < tensors)
    return Status::Invalid(fmt::format(
        "{}: takes {} parameters; hone's C contract passes the {} inputs, then the {} outputs "
        "(destination-passing), then axes by name{}",
        where, params->size(), def.inputs.size(), def.outputs.size(),
        cuda ? " and a cudaStream_t" : ""));
  if (!s.destination_passing)
    return Status::Invalid(where +
                           ": a C/C++ solution without the torch binding must be "
                           "destination-passing (outputs passed in)");
  std::vector<std::string> args;
  for (size_t i = 0; i < tensors; ++i) {
    const Param& p = (*params)[i];
    bool input = i < def.inputs.size();
    size_t k = input ? i : i - def.inputs.size();
    const TensorSpec& t = input ? def.inputs[k] : def.outputs[k];
    std::string data = fmt::format("a->{}[{}].data", input ? "inputs" : "outputs", k);
    if (p.pointer()) {
      args.push_back(fmt::format("static_cast<{}>({})", p.type, data));
    } else if (input && t.scalar && !cuda) {
      args.push_back(fmt::format("*static_cast<const {}*>({})", p.type, data));
    } else {
      return Status::Invalid(where + ": parameter '" + p.name + "' (" + t.name +
                             ") must be a pointer" +
                             (t.scalar ? " (on CUDA a scalar input is in device memory)" : ""));
    }
  }
  for (size_t i = tensors; i < params->size(); ++i) {
    const Param& p = (*params)[i];
    if (p.type.find("cudaStream_t") != std::string::npos) {
      args.push_back("static_cast<cudaStream_t>(a->stream)");
      continue;
    }
    HONE_ASSIGN_OR_RETURN(std::string axis, AxisArgument(def, p, where));
    args.push_back(axis);
  }
  std::string call = s.entry_symbol + "(";
  for (size_t i = 0; i < args.size(); ++i) call += (i ? ",\n      " : "") + args[i];
  return head + "HONE_EXPORT int hone_forward(const hone_args* a) {\n  " + call +
         ");\n  return 0;\n}\n";
}

std::string ModelNewGlue(const Solution& s, const Definition& def, const std::string& call_setup,
                         const std::string& entry) {
  size_t n = def.inputs.size();
  std::string forward =
      s.destination_passing
          ? fmt::format(
                "    hone_destination_passing = True\n\n"
                "    def forward(self, *args):\n"
                "        if len(args) == {0}:  # hone gave no outputs (the warm-up call)\n"
                "            args = tuple(args) + tuple(_hone_fi_allocate(HONE_FI, args))\n"
                "        {1}(*args)\n"
                "        outs = args[{0}:]\n"
                "        return outs[0] if len(outs) == 1 else tuple(outs)\n",
                n, entry)
          : fmt::format(
                "    def forward(self, *args):\n"
                "        return _hone_fi_checked(_hone_fi_outputs({}(*args), HONE_FI), args, "
                "HONE_FI)\n",
                entry);
  return fmt::format(
      "\n\n# ---- hone: FlashInfer-Trace solution '{name}' as a KernelBench ModelNew "
      "(generated) ----\nimport json as _hone_fi_json\nimport torch as _hone_fi_torch\n{setup}"
      "HONE_FI = _hone_fi_json.loads({fi})\n\n\nclass ModelNew(_hone_fi_torch.nn.Module):\n"
      "    def __init__(self, *init):\n        super().__init__()\n\n{forward}",
      fmt::arg("name", s.name), fmt::arg("setup", call_setup),
      fmt::arg("fi", PyString(JsonText(json({{"definition", DefinitionJson(def)}})))),
      fmt::arg("forward", forward));
}

bool IsPythonLanguage(const std::string& l) {
  return l == "python" || l == "triton" || l == "pytorch";
}

std::string PyList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + PyString(items[i]);
  return out + "]";
}

// The extension a C++/CUDA solution with the torch or tvm-ffi binding builds.
std::string ExtensionSetup(const Solution& s, const std::filesystem::path& dir,
                           const std::string& module_name) {
  std::vector<std::string> cpp, cuda, all;
  for (const SourceFile& f : s.sources) {
    if (!IsCompiledSource(f.path)) continue;
    std::string path = (dir / f.path).string();
    (IsCudaSource(f.path) ? cuda : cpp).push_back(path);
    all.push_back(path);
  }
  if (s.binding == "torch")
    return fmt::format(
        "import torch.utils.cpp_extension as _hone_fi_cpp\n"
        "_hone_fi_ext = _hone_fi_cpp.load(name={}, sources={}, extra_include_paths=[{}])\n",
        PyString(module_name), PyList(all), PyString(dir.string()));
  return fmt::format(
      "try:\n    import tvm_ffi.cpp as _hone_fi_tvm\nexcept ImportError as _hone_fi_e:\n"
      "    raise ImportError(\"solution {name} uses the tvm-ffi binding, and the tvm_ffi package "
      "is not installed here (pip install apache-tvm-ffi); or give it spec.binding 'torch'\") "
      "from _hone_fi_e\n"
      "_hone_fi_ext = _hone_fi_tvm.load({module}, cpp_files={cpp}, cuda_files={cuda}, "
      "extra_include_paths=[{dir}])\n",
      fmt::arg("name", PyString(s.name).substr(1, PyString(s.name).size() - 2)),
      fmt::arg("module", PyString(module_name)), fmt::arg("cpp", PyList(cpp)),
      fmt::arg("cuda", PyList(cuda)), fmt::arg("dir", PyString(dir.string())));
}

Status WriteSources(const Solution& s, const std::filesystem::path& dir) {
  for (const SourceFile& f : s.sources) HONE_RETURN_IF_ERROR(WriteOnce(dir / f.path, f.content));
  return Status::Ok();
}

std::string SolutionHash(const Solution& s, const Definition& def) {
  std::string all = JsonText(DefinitionJson(def)) + s.name + s.entry_file + s.entry_symbol +
                    s.binding + (s.destination_passing ? "dps" : "ret");
  for (const auto& l : s.languages) all += "\n" + l;
  for (const SourceFile& f : s.sources) all += "\n" + f.path + "\n" + f.content;
  // The helpers the generated file carries: a hone whose helpers differ
  // (another build sharing the cache) writes a folder of its own.
  if (auto helpers = Helpers(); helpers.ok()) all += "\n" + *helpers;
  return ContentHash({all});
}

}  // namespace

std::string WorkloadLabel(const Workload& w) {
  std::string out;
  for (const auto& [name, value] : w.axes)
    out += (out.empty() ? "" : " ") + name + "=" + std::to_string(value);
  std::string id = w.uuid.size() > 8 ? w.uuid.substr(0, 8) : w.uuid;
  return (out.empty() ? "" : out + " ") + "(workload " + id + ")";
}

// The workload's stored tensors (safetensors files), read now: the problem
// file reads copies beside itself, since the sandbox, which draws a warm-up
// call's inputs, cannot read the dataset's folder (running as nobody, it
// cannot pass a private home or a 0700 folder). Keyed by the workload's own
// path text; the copy's name is its content's hash.
struct StoredBlobs {
  json names = json::object();                             // workload path -> file name
  std::vector<std::pair<std::string, std::string>> files;  // file name, content
};

Result<StoredBlobs> ReadStoredBlobs(const Workload& w, const std::filesystem::path& root) {
  StoredBlobs out;
  for (const auto& [name, s] : w.inputs) {
    if (s.kind != InputSource::Kind::kSafetensors || out.names.contains(s.path)) continue;
    std::filesystem::path file = root / s.path;  // an absolute path replaces root
    auto content = ReadFile(file);
    if (!content.ok())
      return Status::Invalid(w.where() + ": workload.inputs." + name +
                             ".path: " + content.status().message());
    std::string stored = "blob-" + ContentHash({*content}).substr(0, 20) + ".safetensors";
    out.names[s.path] = stored;
    out.files.emplace_back(stored, std::move(*content));
  }
  return out;
}

Result<std::filesystem::path> WriteProblemFile(const Definition& def, const Workload& w,
                                               const std::filesystem::path& root,
                                               const std::filesystem::path& cache) {
  HONE_ASSIGN_OR_RETURN(std::string helpers, Helpers());
  HONE_ASSIGN_OR_RETURN(StoredBlobs blobs, ReadStoredBlobs(w, root));
  json fi = {{"definition", DefinitionJson(def)},
             {"workload", WorkloadJson(w)},
             {"root", AbsolutePath(root)},
             {"stored", blobs.names}};
  json task = TaskInfo(def, w);
  if (!blobs.files.empty()) task["data_beside"] = true;
  std::string text = fmt::format(
      "# hone: FlashInfer-Trace definition '{name}', workload {label}\n"
      "# (generated from {def} and {wl}; do not edit)\n"
      "import json as _hone_fi_json\nimport torch\n\n"
      "HONE_FI = _hone_fi_json.loads({fi})\n"
      "hone_task = _hone_fi_json.loads({task})\n\n"
      "# ---- the definition's reference ----\n{reference}\n\n"
      "# ---- the problem, in KernelBench's format ----\n"
      "class Model(torch.nn.Module):\n"
      "    def __init__(self):\n        super().__init__()\n\n"
      "    def forward(self, *inputs):\n        return _hone_fi_outputs(run(*inputs), "
      "HONE_FI)\n\n\n"
      "def get_inputs():\n    return _hone_fi_inputs(HONE_FI)\n\n\n"
      "def get_init_inputs():\n    return []\n\n\n{helpers}",
      fmt::arg("name", def.name), fmt::arg("label", WorkloadLabel(w)),
      fmt::arg("def", def.file.string()), fmt::arg("wl", w.where()),
      fmt::arg("fi", PyString(JsonText(fi))), fmt::arg("task", PyString(JsonText(task))),
      fmt::arg("reference", def.reference), fmt::arg("helpers", helpers));
  HONE_ASSIGN_OR_RETURN(auto dir, CacheFolder(cache, "problems", ContentHash({text})));
  for (const auto& [stored, content] : blobs.files)
    HONE_RETURN_IF_ERROR(WriteOnce(dir / stored, content));
  std::filesystem::path file = dir / (def.name + ".py");
  HONE_RETURN_IF_ERROR(WriteOnce(file, text));
  return file;
}

Result<WrittenSolution> WriteSolutionFiles(const Solution& s, const Definition& def,
                                           const std::filesystem::path& cache) {
  const std::string language = s.language();
  const std::string hash = SolutionHash(s, def);
  HONE_ASSIGN_OR_RETURN(auto dir, CacheFolder(cache, "solutions", hash));
  WrittenSolution out;
  const bool cuda = language == "cuda" || language == "cuda_cpp" ||
                    std::any_of(s.sources.begin(), s.sources.end(),
                                [](const SourceFile& f) { return IsCudaSource(f.path); });
  if (IsPythonLanguage(language)) {
    if (std::filesystem::path(s.entry_file).extension() != ".py")
      return Status::Invalid(s.file.string() + ": spec.entry_point: a " + language +
                             " solution's entry file is a .py file, not " + s.entry_file);
    HONE_ASSIGN_OR_RETURN(std::string helpers, Helpers());
    HONE_RETURN_IF_ERROR(WriteSources(s, dir));
    std::string prologue =
        s.sources.size() > 1
            ? "import sys as _hone_sys, os as _hone_os; _hone_sys.path.insert(0, "
              "_hone_os.path.dirname(_hone_os.path.abspath(__file__)))  # hone: its other files\n"
            : "";
    std::string text = prologue + s.EntrySource()->content +
                       ModelNewGlue(s, def, "", s.entry_symbol) + "\n\n" + helpers;
    out.modelnew = dir / ("hone_" + std::filesystem::path(s.entry_file).filename().string());
    HONE_RETURN_IF_ERROR(WriteOnce(out.modelnew, text));
    // A python solution is PyTorch code by the format's definition.
    if (language != "triton") out.allow = {"library", "torch-compute"};
    out.note = "FlashInfer-Trace " + language + " solution, " +
               (s.destination_passing ? "destination-passing" : "value-returning");
    return out;
  }
  if (language != "cuda" && language != "cpp" && language != "cuda_cpp")
    return Status::Invalid(s.file.string() +
                           ": spec.language: hone runs python, triton, cuda "
                           "and cpp solutions, not '" +
                           language + "'");
  HONE_RETURN_IF_ERROR(WriteSources(s, dir));
  // The format's default binding for C++ is tvm-ffi; a solution whose entry
  // takes hone's contract needs no binding at all.
  if (s.binding.empty() || s.binding == "tvm-ffi") {
    auto shim = NativeShim(s, def, cuda);
    if (shim.ok()) {
      out.modelnew = dir / (cuda ? "hone_native.cu" : "hone_native.cpp");
      HONE_RETURN_IF_ERROR(WriteOnce(out.modelnew, *shim));
      out.note = "FlashInfer-Trace " + language + " solution through hone's C contract";
      return out;
    }
    if (s.binding.empty() && !s.EntrySource()->content.empty() &&
        s.EntrySource()->content.find("TVM_FFI") == std::string::npos)
      return shim.status();
  }
  HONE_ASSIGN_OR_RETURN(std::string helpers, Helpers());
  std::string module = "hone_fi_" + hash.substr(0, 12);
  std::string setup = ExtensionSetup(s, dir, module);
  std::string entry = s.binding == "torch" ? "_hone_fi_ext." + s.entry_symbol
                                           : "_hone_fi_ext[" + PyString(s.entry_symbol) + "]";
  std::string text = "# hone: FlashInfer-Trace solution '" + s.name + "' (" + language + ", " +
                     (s.binding.empty() ? "tvm-ffi" : s.binding) + " binding)\n" +
                     ModelNewGlue(s, def, setup, entry) + "\n\n" + helpers;
  out.modelnew = dir / "hone_modelnew.py";
  HONE_RETURN_IF_ERROR(WriteOnce(out.modelnew, text));
  out.note = "FlashInfer-Trace " + language + " solution, " +
             (s.binding.empty() ? "tvm-ffi" : s.binding) + " binding";
  return out;
}

}  // namespace hone::flashinfer
