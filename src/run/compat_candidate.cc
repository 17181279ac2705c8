#include "run/compat_candidate.h"

#include <cctype>
#include <set>

#include "core/fs.h"
#include "core/hash.h"

namespace hone {
namespace {

using json = nlohmann::json;

// A byte array initialiser: no quoting rules to get wrong, whatever the
// candidate's source contains.
std::string ByteArray(const std::string& name, const std::string& bytes) {
  std::string out = "static const unsigned char " + name + "[] = {";
  char buf[8];
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 24 == 0) out += "\n    ";
    std::snprintf(buf, sizeof buf, "%u,", static_cast<unsigned char>(bytes[i]));
    out += buf;
  }
  out += "0};\n";
  return out;
}

std::string CString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The shim's C++ around the embedded sources. Python's C API is reached
// through dlsym so the shim needs no Python headers and works with the
// interpreter the oracle uses, whatever its version (3.8 or later).
constexpr const char* kShimBody = R"SHIM(
typedef void* PyObj;
static struct {
  void (*InitializeEx)(int);
  int (*RunSimpleString)(const char*);
  PyObj (*AddModule)(const char*);
  PyObj (*GetAttrString)(PyObj, const char*);
  PyObj (*FromString)(const char*);
  PyObj (*CallObjArgs)(PyObj, ...);
  PyObj (*FromVoidPtr)(void*);
  long (*AsLong)(PyObj);
  void (*DecRef)(PyObj);
  void (*ErrPrint)(void);
  int (*GilEnsure)(void);
  void (*GilRelease)(int);
  void* (*SaveThread)(void);
} py;
static PyObj g_call = 0;

template <typename F>
static bool Sym(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  if (!*out) fprintf(stderr, "hone compat: %s has no %s\n", kLibPython, name);
  return *out != 0;
}

__attribute__((constructor)) static void HoneCompatLoad(void) {
  void* lib = dlopen(kLibPython, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    fprintf(stderr, "hone compat: cannot load %s: %s\n", kLibPython, dlerror());
    return;
  }
  bool ok = Sym(lib, "Py_InitializeEx", &py.InitializeEx) &&
            Sym(lib, "PyRun_SimpleString", &py.RunSimpleString) &&
            Sym(lib, "PyImport_AddModule", &py.AddModule) &&
            Sym(lib, "PyObject_GetAttrString", &py.GetAttrString) &&
            Sym(lib, "PyUnicode_FromString", &py.FromString) &&
            Sym(lib, "PyObject_CallFunctionObjArgs", &py.CallObjArgs) &&
            Sym(lib, "PyLong_FromVoidPtr", &py.FromVoidPtr) &&
            Sym(lib, "PyLong_AsLong", &py.AsLong) && Sym(lib, "Py_DecRef", &py.DecRef) &&
            Sym(lib, "PyErr_Print", &py.ErrPrint) &&
            Sym(lib, "PyGILState_Ensure", &py.GilEnsure) &&
            Sym(lib, "PyGILState_Release", &py.GilRelease) &&
            Sym(lib, "PyEval_SaveThread", &py.SaveThread);
  if (!ok) return;
  py.InitializeEx(0);
  if (py.RunSimpleString(reinterpret_cast<const char*>(kRunner)) != 0) return;
  PyObj main = py.AddModule("__main__");
  PyObj load = py.GetAttrString(main, "hone_compat_load");
  PyObj config = py.FromString(reinterpret_cast<const char*>(kConfig));
  PyObj r = load && config ? py.CallObjArgs(load, config, (PyObj)0) : 0;
  if (!r || py.AsLong(r) != 0) {
    py.ErrPrint();
  } else {
    g_call = py.GetAttrString(main, "hone_compat_call");
    if (!g_call) py.ErrPrint();
  }
  fflush(stdout);
  fflush(stderr);
  py.SaveThread();  // hone_forward takes the GIL back per call
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (!g_call) return HONE_COMPAT_LOAD_FAILED;
  int gil = py.GilEnsure();
  PyObj address = py.FromVoidPtr(const_cast<hone_args*>(args));
  PyObj r = py.CallObjArgs(g_call, address, (PyObj)0);
  long rc = 1;
  if (r) {
    rc = py.AsLong(r);
    py.DecRef(r);
  } else {
    py.ErrPrint();
  }
  py.DecRef(address);
  py.GilRelease(gil);
  return static_cast<int>(rc);
}
)SHIM";

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The identifier that ends just before `end`, spaces skipped; "" if none.
std::string IdentifierBefore(const std::string& s, size_t end) {
  while (end > 0 && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  size_t b = end;
  while (b > 0 && IsIdentChar(s[b - 1])) --b;
  return s.substr(b, end - b);
}

// How far a kernel's name may be from its __global__ or @triton.jit.
constexpr size_t kMaxDeclarationChars = 512;

void AddUnique(std::vector<std::string>& v, const std::string& s) {
  if (s.empty()) return;
  for (const auto& e : v)
    if (e == s) return;
  v.push_back(s);
}

}  // namespace

Result<CompatRuntime> CompatRuntimeFromHello(const json& hello,
                                             const std::filesystem::path& python_dir) {
  CompatRuntime rt;
  if (!hello.contains("runtime") || !hello["runtime"].is_object())
    return Status::Unavailable("the oracle did not describe its Python runtime (an old oracle?)");
  const json& r = hello["runtime"];
  if (!r.contains("libpython") || !r["libpython"].is_string())
    return Status::Unavailable("compat candidates need a shared libpython, and " +
                               hello.value("executable", std::string("the oracle's python")) +
                               " has none (a statically linked interpreter); set HONE_PYTHON to "
                               "one built with --enable-shared");
  rt.libpython = r["libpython"].get<std::string>();
  rt.home = r.value("base_prefix", "");
  rt.torch_dir = r.value("torch_dir", "");
  for (const auto& p : r.value("sys_path", json::array()))
    if (p.is_string()) rt.sys_path.push_back(p.get<std::string>());
  if (std::string exe = hello.value("executable", ""); !exe.empty())
    rt.bin_dir = std::filesystem::path(exe).parent_path().string();
  rt.runner = python_dir / "hone_compat.py";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(rt.runner, ec))
    return Status::NotFound(rt.runner.string() + ": the compat runner is missing");
  return rt;
}

CompatSourceInfo AnalyzeCompatSource(const std::string& source) {
  // A plain scan, not std::regex: libstdc++'s recursion on a long line of a
  // hostile file would crash the trusted process.
  CompatSourceInfo info;
  auto has_word = [&](const std::string& word) {
    for (size_t at = source.find(word); at != std::string::npos; at = source.find(word, at + 1)) {
      size_t end = at + word.size();
      if (end == source.size() || !IsIdentChar(source[end])) return true;
    }
    return false;
  };
  info.has_model_new = has_word("class ModelNew");
  info.builds_extension = source.find("load_inline(") != std::string::npos ||
                          source.find("cpp_extension.load(") != std::string::npos ||
                          source.find("@triton.jit") != std::string::npos;
  auto add = [&](const std::string& name) {
    if (name.empty()) return;
    for (const auto& k : info.kernels)
      if (k == name) return;
    info.kernels.push_back(name);
  };
  // __global__ [return type] [__launch_bounds__(...)] name(
  for (size_t at = source.find("__global__"); at != std::string::npos;
       at = source.find("__global__", at + 10)) {
    size_t from = at + 10;
    for (int guard = 0; guard < 4; ++guard) {
      size_t paren = source.find('(', from);
      if (paren == std::string::npos || paren - at > kMaxDeclarationChars) break;
      std::string name = IdentifierBefore(source, paren);
      if (name != "__launch_bounds__") {
        add(name);
        break;
      }
      size_t close = source.find(')', paren);
      if (close == std::string::npos) break;
      from = close + 1;
    }
  }
  // @triton.jit ... def name(
  for (size_t at = source.find("@triton.jit"); at != std::string::npos;
       at = source.find("@triton.jit", at + 11)) {
    size_t def = source.find("def ", at);
    if (def == std::string::npos || def - at > kMaxDeclarationChars) continue;
    size_t b = def + 4, e = b;
    while (e < source.size() && IsIdentChar(source[e])) ++e;
    add(source.substr(b, e - b));
  }
  return info;
}

Result<std::filesystem::path> WriteCompatShim(const Task& task,
                                              const std::filesystem::path& candidate,
                                              const CompatRuntime& runtime,
                                              const std::filesystem::path& dir) {
  if (!task.pytorch)
    return Status::Invalid(candidate.string() +
                           ": a ModelNew (.py) candidate needs a PyTorch task (.py), not " +
                           task.dir.string());
  const PyTorchInfo& p = *task.pytorch;
  HONE_ASSIGN_OR_RETURN(std::string candidate_source, ReadFile(candidate));
  HONE_ASSIGN_OR_RETURN(std::string problem_source, ReadFile(p.file));
  HONE_ASSIGN_OR_RETURN(std::string runner, ReadFile(runtime.runner));
  json sizes = json::object();
  for (const auto& [name, v] : task.cases.front().symbols) sizes[name] = static_cast<int64_t>(v);
  json params = json::array();
  for (size_t i = static_cast<size_t>(p.num_forward_args); i < task.inputs.size(); ++i)
    params.push_back(task.inputs[i].name);
  json config = {{"device", p.device},
                 {"problem_path", p.file.string()},
                 {"problem_source", problem_source},
                 {"candidate_path", std::filesystem::absolute(candidate).string()},
                 {"candidate_source", candidate_source},
                 {"scale", p.scale},
                 {"sizes", sizes},
                 {"model_seed", p.model_seed},
                 {"num_forward_args", p.num_forward_args},
                 {"param_names", params},
                 {"python_types", p.python_types},
                 {"python_values", p.python_values}};
  std::string text = "// Generated by hone for the compat candidate " + candidate.string() +
                     " (src/run/compat_candidate.h).\n"
                     "#include <dlfcn.h>\n#include <stdio.h>\n\n#include \"hone/kernel.h\"\n\n"
                     "#define HONE_COMPAT_LOAD_FAILED " +
                     std::to_string(kCompatLoadFailed) +
                     "\nstatic const char kLibPython[] = " + CString(runtime.libpython) + ";\n" +
                     ByteArray("kRunner", runner) + ByteArray("kConfig", config.dump()) + kShimBody;
  std::filesystem::path out = dir / ("compat-" + ContentHash({text}).substr(0, 16) + ".cpp");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::exists(out, ec)) HONE_RETURN_IF_ERROR(WriteFileAtomic(out, text));
  return out;
}

std::vector<std::string> CompatReadDirs(const CompatRuntime& rt) {
  // Python and torch, and what load_inline runs: compilers, headers, ninja,
  // the CUDA toolkit.
  std::vector<std::string> dirs = {"/usr",        "/bin",      "/etc",       "/proc",
                                   "/sys",        "/opt",      "/usr/local", "/dev/urandom",
                                   "/dev/random", "/dev/null", "/dev/zero"};
  AddUnique(dirs, rt.home);
  AddUnique(dirs, std::filesystem::path(rt.libpython).parent_path().string());
  AddUnique(dirs, rt.torch_dir);
  for (const auto& p : rt.sys_path) {
    std::error_code ec;
    if (std::filesystem::exists(p, ec)) AddUnique(dirs, p);
  }
  return dirs;
}

std::vector<std::string> CompatEnvironment(const CompatRuntime& rt) {
  std::string path;
  for (const auto& p : rt.sys_path) path += (path.empty() ? "" : ":") + p;
  return {"PYTHONHOME=" + rt.home, "PYTHONPATH=" + path, "PYTHONNOUSERSITE=1",
          "PYTHONDONTWRITEBYTECODE=1",
          "PATH=" + (rt.bin_dir.empty() ? "" : rt.bin_dir + ":") +
              "/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin"};
}

}  // namespace hone
