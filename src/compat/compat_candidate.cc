#include "compat/compat_candidate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <set>

#include "core/fs.h"
#include "core/hash.h"
#include "core/json_text.h"
#include "lang/native_languages.h"
#include "verify/note_words.h"

namespace hone {
namespace {

using json = nlohmann::json;

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
  int (*IsInitialized)(void);
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
static PyObj g_before_call = 0;

template <typename F>
static bool Sym(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  if (!*out) fprintf(stderr, "hone compat: %s has no %s\n", kLibPython, name);
  return *out != 0;
}

// Runs the runner and loads the candidate; false when the module failed
// (hone_forward then reports it).
static bool LoadCandidate(void) {
  if (py.RunSimpleString(reinterpret_cast<const char*>(kRunner)) != 0) return false;
  PyObj main = py.AddModule("__main__");
  PyObj load = py.GetAttrString(main, "hone_compat_load");
  PyObj config = py.FromString(reinterpret_cast<const char*>(kConfig));
  PyObj r = load && config ? py.CallObjArgs(load, config, (PyObj)0) : 0;
  if (!r || py.AsLong(r) != 0) {
    py.ErrPrint();
    return false;
  }
  g_call = py.GetAttrString(main, "hone_compat_call");
  if (!g_call) py.ErrPrint();
  g_before_call = py.GetAttrString(main, "hone_compat_before_call");
  if (!g_before_call) py.ErrPrint();
  return g_call != 0 && g_before_call != 0;
}

__attribute__((constructor)) static void HoneCompatLoad(void) {
  void* lib = dlopen(kLibPython, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    fprintf(stderr, "hone compat: cannot load %s: %s\n", kLibPython, dlerror());
    return;
  }
  bool ok = Sym(lib, "Py_InitializeEx", &py.InitializeEx) &&
            Sym(lib, "Py_IsInitialized", &py.IsInitialized) &&
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
  // A warm sandbox started Python (and imported torch) before this library
  // was known, and released the interpreter lock.
  const int warm = py.IsInitialized();
  int gil = 0;
  if (warm)
    gil = py.GilEnsure();
  else
    py.InitializeEx(0);
  LoadCandidate();
  fflush(stdout);
  fflush(stderr);
  if (warm)
    py.GilRelease(gil);
  else
    py.SaveThread();  // hone_forward takes the GIL back per call
}

static int CallRunner(PyObj fn, const hone_args* args) {
  int gil = py.GilEnsure();
  PyObj address = py.FromVoidPtr(const_cast<hone_args*>(args));
  PyObj r = py.CallObjArgs(fn, address, (PyObj)0);
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

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (!g_call) return HONE_COMPAT_LOAD_FAILED;
  return CallRunner(g_call, args);
}

// The sandbox calls this before each call's hold, flush and clock
// (sandbox/call_server.cc): the runner reads the call's Python scalars there.
HONE_EXPORT int hone_compat_before_call(const hone_args* args) {
  if (!g_before_call) return 0;
  return CallRunner(g_before_call, args);
}
)SHIM";

void AddUnique(std::vector<std::string>& v, const std::string& s) {
  if (s.empty()) return;
  for (const auto& e : v)
    if (e == s) return;
  v.push_back(s);
}

}  // namespace

// `bytes` as a C array initialised by a string literal, one source line per
// line of text: the compiler reads a literal about twice as fast as the
// same bytes written as integers (the shim of a KernelBench file holds about
// 60 KB of Python), and every new candidate's shim is compiled. Escapes are
// three octal digits, so a digit after one is never read as part of it.
std::string CByteArrayDefinition(const std::string& name, const std::string& bytes) {
  std::string out = "static const unsigned char " + name + "[] =\n    \"";
  char buf[8];
  for (unsigned char c : bytes) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n\"\n    \"";
    } else if (c >= 32 && c < 127 && c != '?') {  // '?': no trigraph can form
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  out += "\";\n";
  return out;
}

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
  if (r.contains("pycache_prefix") && r["pycache_prefix"].is_string())
    rt.pycache_prefix = r["pycache_prefix"].get<std::string>();
  rt.runner = python_dir / "hone_compat.py";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(rt.runner, ec))
    return Status::NotFound(rt.runner.string() + ": the compat runner is missing");
  return rt;
}

const char* CompatModeName(CompatMode m) {
  switch (m) {
    case CompatMode::kCandidate:
      return "candidate";
    case CompatMode::kEager:
      return "eager";
    case CompatMode::kCompile:
      return "compile";
  }
  return "candidate";
}

Result<std::filesystem::path> WriteCompatShim(const Task& task,
                                              const std::filesystem::path& candidate,
                                              const CompatRuntime& runtime,
                                              const std::filesystem::path& dir,
                                              const CompatShimOptions& options) {
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
  json config = {
      {"device", p.device},
      {"problem_path", (options.problem_path.empty() ? p.file : options.problem_path).string()},
      {"problem_source", problem_source},
      {"candidate_path", (options.candidate_path.empty() ? std::filesystem::absolute(candidate)
                                                         : options.candidate_path)
                             .string()},
      {"candidate_source", candidate_source},
      {"scale", p.scale},
      {"sizes", sizes},
      {"model_seed", p.model_seed},
      {"reseed_rng", p.uses_rng},
      {"num_forward_args", p.num_forward_args},
      {"param_names", params},
      {"python_types", p.python_types},
      {"python_values", p.python_values},
      {"mode", CompatModeName(options.mode)},
      {"warm_up", options.warm_up}};
  std::error_code ec;
  if (!options.language.empty()) {
    config["language"] = options.language;
    // The language's part of the runner (python/hone_lang_<language>.py),
    // beside it when the language has one: the runner loads it by this name.
    std::filesystem::path part = runtime.runner.parent_path() / ("hone_lang_" + options.language);
    part += runtime.runner.extension();
    if (std::filesystem::is_regular_file(part, ec)) {
      HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(part));
      config["language_source"] = text;
    }
  }
  for (const auto& [key, value] : options.runner_config.items()) config[key] = value;
  json prebuilt = json::object();
  for (const auto& [key, library] : options.prebuilt) prebuilt[key] = library.string();
  for (const auto& [key, log] : options.failed_builds) prebuilt[key] = {{"error", log}};
  config["prebuilt"] = prebuilt;
  // Each call's work (python/hone_compat_call.py), beside the runner: the
  // runner executes it from the config as the shim executes the runner.
  HONE_ASSIGN_OR_RETURN(std::string calls,
                        ReadFile(runtime.runner.parent_path() / "hone_compat_call.py"));
  config["call_source"] = calls;
  // The load_inline hook, beside the runner when this hone has it.
  std::filesystem::path extbuild = runtime.runner.parent_path() / "hone_extbuild.py";
  if (std::filesystem::is_regular_file(extbuild, ec)) {
    HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(extbuild));
    config["extbuild_source"] = text;
  }
  std::string text = "// Generated by hone for the compat candidate " + candidate.string() +
                     " (src/compat/compat_candidate.h).\n"
                     "#include <dlfcn.h>\n#include <stdio.h>\n\n#include \"hone/kernel.h\"\n\n"
                     "#define HONE_COMPAT_LOAD_FAILED " +
                     std::to_string(kCompatLoadFailed) +
                     "\nstatic const char kLibPython[] = " + CString(runtime.libpython) + ";\n" +
                     CByteArrayDefinition("kRunner", runner) +
                     CByteArrayDefinition("kConfig", JsonText(config)) + kShimBody;
  std::filesystem::path out =
      dir / ("compat-" + ContentHash({text}).substr(0, 16) + CppLanguage().source.extension());
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::exists(out, ec)) HONE_RETURN_IF_ERROR(WriteFileAtomic(out, text));
  return out;
}

namespace {

// `s` cut to `cap` bytes, never inside a UTF-8 character.
std::string Capped(const std::string& s, size_t cap) {
  return s.size() <= cap ? s : std::string(Utf8Prefix(s, cap)) + " [...]";
}

// An exception as the runner described it (python/hone_compat.py's
// describe_exception): "ValueError at relu.py:25 (in forward: `y = f(x)`):
// message", naming the innermost line of the user's own file.
std::string Raised(const json& e) {
  std::string out = e.value("type", std::string("an exception"));
  const std::string file = e.value("file", "");
  if (!file.empty()) {
    out += " at " + std::filesystem::path(file).filename().string() + ":" +
           std::to_string(e.value("line", 0));
    const std::string function = e.value("function", "");
    const std::string code = e.value("code", "");
    if (!function.empty() || !code.empty())
      out += " (in " + function + (code.empty() ? "" : ": `" + code + "`") + ")";
  }
  const std::string message = e.value("message", "");
  if (!message.empty()) out += ": " + Capped(message, 2000);
  return out;
}

// Whether the exception is one the language's compiler raises when a kernel
// does not compile (ModelNewLoading::compile_exceptions).
bool CompileError(const json& e, const Language* language) {
  if (!language) return false;
  const std::string module = e.value("module", "") + ".";
  const std::string type = e.value("type", "");
  for (const std::string& x : language->loading.compile_exceptions)
    if (x == type || (x.back() == '.' && module.rfind(x, 0) == 0)) return true;
  return false;
}

CompatEvents::Failure CallFailure(const json& e, const Language* language) {
  const std::string reason = e.value("reason", "");
  // An output of the wrong shape is a wrong answer (KernelBench: "Output
  // shape mismatch"), not an error.
  if (e.value("wrong_output", false))
    return {VerdictStatus::kIncorrect, "wrong output: " + Capped(reason, 2000)};
  if (reason != "raised") return {VerdictStatus::kRuntimeError, Capped(reason, 2000)};
  if (CompileError(e, language))
    return {VerdictStatus::kCompileError,
            language->label + " could not compile a kernel: " + Raised(e)};
  return {VerdictStatus::kRuntimeError, "ModelNew's forward raised " + Raised(e)};
}

// A jit_kernels event's kernels, as the runner reported them.
std::vector<notes::JitKernel> JitKernels(const json& e) {
  std::vector<notes::JitKernel> out;
  for (const json& k : e.value("kernels", json::array())) {
    if (!k.is_object()) continue;
    notes::JitKernel& one = out.emplace_back();
    one.name = k.value("name", std::string("?"));
    one.compiled = k.value("compiled", 0);
    one.stored = k.value("stored", 0);
    if (k.contains("configs")) one.configs = k.value("configs", 0);
    if (k.contains("tuning_seconds")) one.tuning_seconds = k.value("tuning_seconds", 0.0);
    if (k.contains("best")) one.best = Capped(k.value("best", ""), 200);
  }
  return out;
}

}  // namespace

CompatEvents ReadCompatEvents(const std::string& log, const Language* language) {
  CompatEvents out;
  const std::string tag = "hone-compat-event: ";
  constexpr size_t kMaxEvents = 64;  // the log is the candidate's to fill
  size_t seen = 0;
  for (size_t at = log.find(tag); at != std::string::npos && seen < kMaxEvents;
       at = log.find(tag, at + 1), ++seen) {
    size_t end = log.find('\n', at);
    json e =
        json::parse(log.substr(at + tag.size(), end == std::string::npos ? std::string::npos
                                                                         : end - at - tag.size()),
                    nullptr, false);
    if (!e.is_object()) continue;
    const std::string kind = e.value("event", "");
    const std::string name = e.value("name", "");
    if (kind == "warm_up" && !e.value("ok", true)) {
      out.failures.push_back(
          "the first call, made while the module loaded, raised " +
          (e.contains("type") ? Raised(e) : e.value("error", std::string("an error"))));
    } else if (kind == "extension" && e.contains("error")) {
      out.failures.push_back("building extension '" + name + "' failed: " + e.value("error", ""));
    } else if (kind == "extension") {
      out.notes.push_back(notes::ExtensionLoaded(name, e.value("source", std::string("loaded"))));
    } else if (kind == "jit_compile_failed") {
      out.failures.push_back("compiling kernel '" + e.value("kernel", std::string("?")) +
                             "' failed: " + Raised(e));
    } else if (kind == "jit_kernels") {
      if (auto note = notes::JitKernelsCompiled(JitKernels(e))) out.notes.push_back(*note);
    } else if (kind == "load_seconds") {
      for (const auto& [phase, seconds] : e.items())
        if (seconds.is_number()) {
          out.load_seconds += seconds.get<double>();
          if (phase == "warm_up") out.first_call_seconds = seconds.get<double>();
        }
    } else if (kind == "load_failed" && !out.load_failed) {
      out.load_failed = CompatEvents::Failure{VerdictStatus::kCompileError,
                                              "the ModelNew file failed to load: " + Raised(e)};
    } else if (kind == "call_failed" && !out.call_failed) {
      out.call_failed = CallFailure(e, language);
    }
  }
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
  if (std::string bytecode = SandboxBytecodeDir(rt); !bytecode.empty()) AddUnique(dirs, bytecode);
  return dirs;
}

std::string SandboxBytecodeDir(const CompatRuntime& rt) {
  const std::filesystem::path dir(rt.pycache_prefix);
  if (!dir.is_absolute()) return "";  // none ("" included)
  // As root the sandbox runs as 'nobody'; otherwise as this user.
  std::error_code ec;
  bool readable = geteuid() == 0 ? OthersCanReach(dir) : std::filesystem::is_directory(dir, ec);
  return readable ? rt.pycache_prefix : "";
}

std::vector<std::string> CompatEnvironment(const CompatRuntime& rt) {
  std::string path;
  for (const auto& p : rt.sys_path) path += (path.empty() ? "" : ":") + p;
  // numpy's OpenBLAS starts a thread per core when it loads; in a warm
  // sandbox that is before confinement (process/warm_pool.h), so every compat
  // sandbox, warm or cold, keeps numpy's BLAS to one thread. torch's own
  // CPU threads (OMP_NUM_THREADS) are untouched.
  std::vector<std::string> env = {"PYTHONHOME=" + rt.home, "PYTHONPATH=" + path,
                                  "PYTHONNOUSERSITE=1", "PYTHONDONTWRITEBYTECODE=1",
                                  "OPENBLAS_NUM_THREADS=1",
                                  // The sandbox's locale is C (ASCII); a candidate printing a
                                  // compiler's message with its curly quotes must not die of
                                  // a UnicodeEncodeError (issue 33, item 7).
                                  "PYTHONUTF8=1", "PYTHONIOENCODING=utf-8",
                                  "PATH=" + (rt.bin_dir.empty() ? "" : rt.bin_dir + ":") +
                                      "/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin"};
  // The oracle's compiled modules, read-only: a sandbox then imports torch
  // in a fraction of the time where site-packages has no bytecode.
  if (std::string bytecode = SandboxBytecodeDir(rt); !bytecode.empty())
    env.push_back("PYTHONPYCACHEPREFIX=" + bytecode);
  return env;
}

}  // namespace hone
