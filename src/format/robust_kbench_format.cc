#include "format/robust_kbench_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/fs.h"
#include "core/hash.h"
#include "core/json_text.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

constexpr const char* kTaskFile = "func_forward.py";
constexpr const char* kConfigFile = "config_forward.json";
constexpr const char* kCacheFolder = "formats/robust-kbench";

bool IsTaskDir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kTaskFile, ec) && fs::is_regular_file(dir / kConfigFile, ec);
}

fs::path TaskDirOf(const fs::path& problem) {
  return problem.filename() == kTaskFile ? problem.parent_path() : problem;
}

std::string PyString(const std::string& text) { return JsonText(nlohmann::json(text)); }

struct Configuration {
  ojson init, input;
  std::string label;
};

// robust-kbench's name of a configuration: k_v of the init, then the input
// arguments, joined by '_' (spaces, dots, dashes and '=' made '_').
std::string ConfigName(const ojson& init, const ojson& input) {
  std::string out;
  for (const ojson* part : {&init, &input})
    for (const auto& [k, v] : part->items())
      out +=
          (out.empty() ? "" : "_") + k + "_" + (v.is_string() ? v.get<std::string>() : JsonText(v));
  for (char& c : out)
    if (c == ' ' || c == '.' || c == '-' || c == '=') c = '_';
  return out.empty() ? "defaults" : out;
}

Result<std::vector<ojson>> ConfigList(const ojson& j, const std::string& key,
                                      const fs::path& file) {
  if (!j.contains(key) || j[key].is_null()) return std::vector<ojson>{ojson::object()};
  if (!j[key].is_array())
    return Status::Invalid(file.string() + ": " + key + ": expected a list of objects");
  std::vector<ojson> out;
  for (size_t i = 0; i < j[key].size(); ++i) {
    if (!j[key][i].is_object())
      return Status::Invalid(file.string() + ": " + key + "[" + std::to_string(i) +
                             "]: expected an object of argument: value");
    out.push_back(j[key][i]);
  }
  if (out.empty()) out.push_back(ojson::object());
  return out;
}

// Every configuration, single then multi, each init x input x shared (the
// shared keys given to both), without repeats.
Result<std::vector<Configuration>> Configurations(const fs::path& file) {
  auto text = ReadFile(file);
  if (!text.ok()) return Status::Invalid(file.string() + ": cannot read the file");
  ojson j = ojson::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Status::Invalid(file.string() + ": not a JSON object");
  std::vector<Configuration> out;
  std::set<std::string> seen;
  for (const char* mode : {"single", "multi"}) {
    std::string m = mode;
    HONE_ASSIGN_OR_RETURN(auto inits, ConfigList(j, m + "_init_configs", file));
    HONE_ASSIGN_OR_RETURN(auto inputs, ConfigList(j, m + "_input_configs", file));
    HONE_ASSIGN_OR_RETURN(auto shared, ConfigList(j, m + "_shared_configs", file));
    for (const auto& init : inits)
      for (const auto& input : inputs)
        for (const auto& common : shared) {
          Configuration c{init, input, ""};
          for (const auto& [k, v] : common.items()) {
            c.init[k] = v;
            c.input[k] = v;
          }
          if (!seen.insert(JsonText(c.init) + "|" + JsonText(c.input)).second) continue;
          c.label = ConfigName(c.init, c.input);
          out.push_back(std::move(c));
        }
  }
  return out;
}

std::string TaskName(const fs::path& dir) {
  fs::path abs = fs::absolute(dir).lexically_normal();
  if (abs.filename().empty()) abs = abs.parent_path();
  return abs.filename().string();
}

Status WriteOnce(const fs::path& file, const std::string& content) {
  std::error_code ec;
  if (fs::is_regular_file(file, ec)) return Status::Ok();
  fs::create_directories(file.parent_path(), ec);
  return WriteFileAtomic(file, content);
}

std::string ProblemSource(const std::string& task, const std::string& source,
                          const Configuration& c) {
  return fmt::format(
      "# hone: robust-kbench task '{task}', configuration {label} (generated; do not edit)\n"
      "{source}\n\n"
      "# ---- hone: the configuration, in KernelBench's format ----\n"
      "import json as _hone_rkb_json\n\n"
      "HONE_RKB_INIT = _hone_rkb_json.loads({init})\n"
      "HONE_RKB_INPUT = _hone_rkb_json.loads({input})\n"
      "hone_task = {{'name': {name}, 'category': 'robust-kbench', 'format': 'robust-kbench',\n"
      "             'description': 'robust-kbench task {task}, configuration {label}. ' +\n"
      "             (forward_fn.__doc__ or '').split('Args:')[0].strip()}}\n"
      "if isinstance(globals().get('input_names'), (list, tuple)):\n"
      "    hone_task['inputs'] = [str(n) for n in input_names]\n"
      "_hone_rkb_task_model = Model\n"
      "_hone_rkb_task_inputs = get_inputs\n\n\n"
      "class Model(_hone_rkb_task_model):\n"
      "    def __init__(self, init=None):\n"
      "        super().__init__(**(HONE_RKB_INIT if init is None else init))\n\n\n"
      "def get_inputs():\n    return list(_hone_rkb_task_inputs(**HONE_RKB_INPUT))\n\n\n"
      "def get_init_inputs():\n    return [HONE_RKB_INIT]\n",
      fmt::arg("task", task), fmt::arg("label", c.label), fmt::arg("source", source),
      fmt::arg("init", PyString(JsonText(c.init))), fmt::arg("input", PyString(JsonText(c.input))),
      fmt::arg("name", PyString(task)));
}

// A .cu/.cpp candidate (PYBIND11_MODULE defining forward) as the ModelNew
// that builds it and calls the task's Model with fn=forward.
std::string CandidateSource(const std::string& task, const std::string& task_source,
                            const fs::path& copy, const std::string& module) {
  return fmt::format(
      "# hone: robust-kbench candidate {file} for task '{task}' as a KernelBench ModelNew "
      "(generated)\n{source}\n\n"
      "# ---- hone: the candidate's extension, called as robust-kbench calls it ----\n"
      "from torch.utils.cpp_extension import load as _hone_rkb_load\n\n"
      "_hone_rkb_ext = _hone_rkb_load(name={module}, sources=[{path}],\n"
      "                               extra_cuda_cflags=['-O3', '--use_fast_math'])\n"
      "_hone_rkb_task_model = Model\n\n\n"
      "class ModelNew(_hone_rkb_task_model):\n"
      "    def __init__(self, init=None):\n"
      "        super().__init__(**(init or {{}}))\n\n"
      "    def forward(self, *inputs):\n"
      "        return super().forward(*inputs, fn=_hone_rkb_ext.forward)\n",
      fmt::arg("file", copy.filename().string()), fmt::arg("task", task),
      fmt::arg("source", task_source), fmt::arg("module", PyString(module)),
      fmt::arg("path", PyString(copy.string())));
}

bool IsKernelSource(const fs::path& f) {
  auto ext = f.extension().string();
  return ext == ".cu" || ext == ".cpp" || ext == ".cc";
}

std::vector<fs::path> SortedChildren(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (!n.empty() && n[0] != '.' && n[0] != '_') out.push_back(e.path());
  }
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
    return NaturalLess(a.filename().string(), b.filename().string());
  });
  return out;
}

class RobustKbench : public TaskFormat {
 public:
  std::string name() const override { return "robust-kbench"; }
  std::string describe() const override {
    return "a robust-kbench task folder (func_forward.py, config_forward.json)";
  }
  bool ClaimsProblem(const fs::path& path) const override { return IsTaskDir(TaskDirOf(path)); }
  bool ClaimsSuite(const fs::path& path) const override {
    if (IsTaskDir(path)) return true;
    for (const auto& c : SortedChildren(path)) {
      if (IsTaskDir(c)) return true;
      for (const auto& cc : SortedChildren(c))
        if (IsTaskDir(cc)) return true;
    }
    return false;
  }

  Result<std::vector<ProblemPart>> Parts(const fs::path& problem,
                                         const PartOptions& options) const override {
    if (!options.workloads.empty()) return TaskFormat::Parts(problem, options);
    fs::path dir = TaskDirOf(problem);
    HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(dir / kTaskFile));
    if (source.find("def forward_fn") == std::string::npos ||
        source.find("class Model") == std::string::npos ||
        source.find("def get_inputs") == std::string::npos)
      return Status::Invalid((dir / kTaskFile).string() +
                             ": a robust-kbench task defines forward_fn, Model and get_inputs");
    HONE_ASSIGN_OR_RETURN(auto configs, Configurations(dir / kConfigFile));
    HONE_ASSIGN_OR_RETURN(fs::path cache, CacheDir());
    std::string task = TaskName(dir);
    std::vector<ProblemPart> parts;
    for (const auto& c : configs) {
      std::string text = ProblemSource(task, source, c);
      fs::path file =
          cache / kCacheFolder / "problems" / ContentHash({text}).substr(0, 20) / (task + ".py");
      HONE_RETURN_IF_ERROR(WriteOnce(file, text));
      parts.push_back({file, c.label, c.label});
    }
    return parts;
  }

  Result<FormatCandidate> Candidate(const fs::path& problem,
                                    const fs::path& candidate) const override {
    if (!IsKernelSource(candidate)) return TaskFormat::Candidate(problem, candidate);
    fs::path dir = TaskDirOf(problem);
    HONE_ASSIGN_OR_RETURN(std::string task_source, ReadFile(dir / kTaskFile));
    auto kernel = ReadFile(candidate);
    if (!kernel.ok()) return Status::Invalid(candidate.string() + ": cannot read the candidate");
    if (kernel->find("PYBIND11_MODULE") == std::string::npos)
      return Status::Invalid(candidate.string() +
                             ": a robust-kbench candidate defines forward in a PYBIND11_MODULE");
    HONE_ASSIGN_OR_RETURN(fs::path cache, CacheDir());
    std::string hash = ContentHash({task_source, *kernel}).substr(0, 20);
    fs::path folder = cache / kCacheFolder / "candidates" / hash;
    fs::path copy = folder / candidate.filename();
    HONE_RETURN_IF_ERROR(WriteOnce(copy, *kernel));
    fs::path modelnew = folder / (candidate.stem().string() + "_" + TaskName(dir) + ".py");
    HONE_RETURN_IF_ERROR(WriteOnce(modelnew, CandidateSource(TaskName(dir), task_source, copy,
                                                             "hone_rkb_" + hash.substr(0, 12))));
    return FormatCandidate{modelnew,
                           {},
                           candidate.filename().string(),
                           "robust-kbench candidate built with torch.utils.cpp_extension.load"};
  }

  Result<std::vector<SuiteEntry>> Discover(const fs::path& suite,
                                           const SuiteLayout& layout) const override {
    std::vector<std::pair<fs::path, std::string>> tasks;  // folder, category
    std::string name = TaskName(suite);
    if (IsTaskDir(suite)) tasks.push_back({suite, name});
    for (const auto& c : SortedChildren(suite)) {
      if (IsTaskDir(c))
        tasks.push_back({c, name});
      else
        for (const auto& cc : SortedChildren(c))
          if (IsTaskDir(cc)) tasks.push_back({cc, c.filename().string()});
    }
    std::vector<SuiteEntry> out;
    for (const auto& [dir, category] : tasks) {
      HONE_ASSIGN_OR_RETURN(auto parts, Parts(dir, PartOptions{}));
      SuiteEntry model;
      model.category = category;
      for (const auto& file : Solutions(dir, layout)) {
        HONE_ASSIGN_OR_RETURN(FormatCandidate c, Candidate(dir, file));
        model.solutions.push_back(c.file);
      }
      for (const auto& p : parts) {
        SuiteEntry e = model;
        e.task = p.load;
        e.label = TaskName(dir) + " " + p.label;
        out.push_back(std::move(e));
      }
    }
    if (out.empty()) return Status::Invalid(suite.string() + ": no robust-kbench tasks found");
    HONE_RETURN_IF_ERROR(ApplyOnly(suite, out, layout));
    return out;
  }

 private:
  // The task's known-good forward.cu and its solutions/ folder; CUDA files
  // only for a CUDA bench.
  static std::vector<fs::path> Solutions(const fs::path& dir, const SuiteLayout& layout) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_regular_file(dir / "forward.cu", ec)) files.push_back(dir / "forward.cu");
    for (const auto& f : SortedChildren(dir / "solutions"))
      if (IsKernelSource(f) || f.extension() == ".py") files.push_back(f);
    std::vector<fs::path> out;
    for (const auto& f : files) {
      bool cuda_file = f.extension() == ".cu";
      if (cuda_file && layout.backend == "cpu") continue;
      if (!IsKernelSource(f) && layout.is_solution && !layout.is_solution(f)) continue;
      out.push_back(f);
    }
    return out;
  }
};

class MultiKernelBench : public TaskFormat {
 public:
  std::string name() const override { return "multikernelbench"; }
  std::string describe() const override {
    return "a MultiKernelBench folder (reference/<category>/<op>.py)";
  }
  // Its problems are KernelBench files, which that format claims.
  bool ClaimsProblem(const fs::path&) const override { return false; }
  bool ClaimsSuite(const fs::path& path) const override {
    std::error_code ec;
    return fs::is_directory(path / "reference", ec) &&
           HoldsNativeOrPyTorchTasks(path / "reference");
  }
  Result<std::vector<SuiteEntry>> Discover(const fs::path& suite,
                                           const SuiteLayout& layout) const override {
    SuiteLayout l = layout;
    if (l.solutions_root.empty()) l.solutions_root = suite / "candidates";
    return DiscoverSuite(suite / "reference", l);
  }
};

}  // namespace

std::unique_ptr<TaskFormat> RobustKbenchFormat() { return std::make_unique<RobustKbench>(); }
std::unique_ptr<TaskFormat> MultiKernelBenchFormat() {
  return std::make_unique<MultiKernelBench>();
}

}  // namespace hone
