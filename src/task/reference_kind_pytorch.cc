#include "task/reference_kind_pytorch.h"

#include "core/fs.h"
#include "task/oracle_service.h"
#include "task/problem_text.h"

namespace hone {
namespace {

// What the oracle measured of a PyTorch task; only such tasks are asked.
const PyTorchInfo& PyTorchInfoOf(const Task& task) {
  HONE_CHECK(task.pytorch.has_value(), task.name + " is not a PyTorch task");
  return *task.pytorch;
}

// What `hone task show --json` says of a PyTorch task.
nlohmann::json PyTorchInfoJson(const PyTorchInfo& p) {
  nlohmann::json inputs = nlohmann::json::array();
  for (size_t i = 0; i < p.input_kinds.size(); ++i) {
    nlohmann::json k = {{"kind", p.input_kinds[i]}};
    if (!p.python_types[i].empty()) k["python_type"] = p.python_types[i];
    inputs.push_back(k);
  }
  return {{"file", p.file.string()},
          {"device", p.device},
          {"torch", p.torch_version},
          {"scale", p.scale},
          {"policy", p.policy},
          {"shapes", p.shapes},
          {"forward_args", p.num_forward_args},
          {"input_kinds", inputs},
          {"distributions", p.distribution_names},
          {"uses_rng", p.uses_rng}};
}

// A .py path that is not a folder (one that does not exist yet is the
// loader's to refuse, naming it), its solutions in KernelBench's layout.
class PyTorchProblemPaths final : public ReferencePaths {
 public:
  bool ClaimsProblemPath(const std::filesystem::path& path) const override {
    std::error_code ec;
    return IsPyTorchTaskFile(path) && !std::filesystem::is_directory(path, ec);
  }
  // SOLUTIONS/<category>/<problem>/, or SOLUTIONS/<problem>/ when the suite
  // has no category folders.
  std::filesystem::path SolutionsFolder(const std::filesystem::path& problem,
                                        const std::filesystem::path& solutions_root,
                                        const std::string& category) const override {
    std::string stem = problem.stem().string();
    std::filesystem::path nested = solutions_root / category / stem;
    std::error_code ec;
    return std::filesystem::is_directory(nested, ec) ? nested : solutions_root / stem;
  }
};

// The module is no program to the candidate contract; its own Model is a
// ModelNew candidate.
class PyTorchPrograms final : public ReferencePrograms {
 public:
  // The problem's own Model as its ModelNew: torch eager.
  Result<ReferenceCandidate> AsCandidate(const Task& task, const std::string&,
                                         const std::filesystem::path& dir) const override {
    HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(PyTorchInfoOf(task).file));
    std::filesystem::path file = dir / "reference_as_candidate.py";
    HONE_RETURN_IF_ERROR(WriteFileAtomic(file, source +
                                                   "\n\n# hone: the problem's own Model, timed for "
                                                   "the first prompt\nModelNew = Model\n"));
    return ReferenceCandidate{file, {"library"}, "torch eager (the task's Model)"};
  }

  // The problem's whole source (a generated problem's helpers included)
  // with its own Model as the candidate: timed like a candidate, its
  // baselines (eager, torch.compile) then timed beside it and cached.
  Result<std::filesystem::path> BaselinesCandidate(
      const Task& task, const std::filesystem::path& dir) const override {
    std::filesystem::path file = dir / (task.name + "_model.py");
    HONE_RETURN_IF_ERROR(WriteFileAtomic(
        file,
        PyTorchInfoOf(task).source +
            "\n\nclass ModelNew(Model):\n"
            "    \"\"\"hone prepare: the problem's own Model, to time its baselines.\"\"\"\n"));
    return file;
  }
};

class PyTorchText final : public ReferenceText {
 public:
  std::optional<ProblemListing> Listing(const Task& task, const Language& language) const override {
    return ProblemListing{
        language.run.modelnew()
            ? "The problem, a KernelBench module: ModelNew replaces its Model (module-level "
              "sizes may have been scaled to the values below)"
            : "The operator, as PyTorch: your kernel computes Model.forward on the sizes "
              "listed below (module-level sizes may have been scaled), with the model's "
              "parameters and buffers passed as inputs after the forward arguments",
        "python", ProblemTextOf(PyTorchInfoOf(task).source), false};
  }

  std::string ArgumentsPreamble(const Task& task) const override {
    return "  (the model's forward arguments, then its state_dict() tensors in order; sizes: " +
           PyTorchInfoOf(task).shapes + ")\n";
  }

  // A forward argument (a Python number among them), a parameter or a
  // buffer of state_dict().
  std::string InputOrigin(const Task& task, size_t i) const override {
    const PyTorchInfo& p = PyTorchInfoOf(task);
    if (i >= p.input_kinds.size()) return "";
    std::string kind = p.input_kinds[i];
    if (kind == "forward_arg") {
      kind = "forward argument";
      if (!p.python_types[i].empty())
        kind += ", a Python " + p.python_types[i] + " passed as a 0-d tensor";
    } else {
      kind = "state_dict " + kind;
    }
    return "  (" + kind + ")";
  }

  std::string SizesText(const Task& task) const override { return PyTorchInfoOf(task).shapes; }

  void AddJson(const Task& task, nlohmann::json& j) const override {
    j["pytorch"] = PyTorchInfoJson(PyTorchInfoOf(task));
  }
};

// The forward arguments come first, then the model's state; the oracle
// holds the model and what a forward and a draw take.
class PyTorchInputs final : public ReferenceInputs {
 public:
  size_t ForwardArguments(const Task& task) const override {
    return static_cast<size_t>(PyTorchInfoOf(task).num_forward_args);
  }

  bool HasState(const Task& task) const override { return PyTorchInfoOf(task).HasState(); }

  ReferenceMemory Memory(const Task& task) const override {
    const PyTorchInfo& p = PyTorchInfoOf(task);
    return {p.forward_peak_bytes, p.draw_peak_bytes, p.model_bytes};
  }
};

class PyTorchKind final : public ReferenceKind {
 public:
  std::string name() const override { return "pytorch"; }
  bool Claims(const Task& task) const override { return task.pytorch.has_value(); }
  ReferenceSite site() const override { return ReferenceSite::kOracle; }
  bool TakesModelNew() const override { return true; }
  bool NamesItsCategory() const override { return false; }

  const ReferencePaths& paths() const override { return paths_; }
  const ReferencePrograms& programs() const override { return programs_; }
  const ReferenceText& text() const override { return text_; }
  const ReferenceInputs& inputs() const override { return inputs_; }

 private:
  PyTorchProblemPaths paths_;
  PyTorchPrograms programs_;
  PyTorchText text_;
  PyTorchInputs inputs_;
};

}  // namespace

std::unique_ptr<ReferenceKind> PyTorchReferenceKind() { return std::make_unique<PyTorchKind>(); }

}  // namespace hone
