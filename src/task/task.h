// A task: what an operator takes and returns, the shapes to check it at, how
// close a result must be, and what it costs. Backend-independent; a native
// task comes from task.toml (task_loader.h), a PyTorch one from the oracle.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/expr.h"
#include "task/distribution.h"
#include "verify/tolerance.h"

namespace hone {

struct TensorDecl {
  std::string name;
  Dtype dtype = HONE_F32;
  std::vector<Expr> shape;
  std::vector<Distribution> values;  // inputs only; cycled per distribution index
};

struct ShapeCase {
  std::string label;  // "B=128 N=1024"
  Symbols symbols;
  std::vector<std::string> backends;  // empty: every backend
  bool RunsOn(const std::string& backend) const;
};

// What a PyTorch-defined task (a KernelBench-format .py file) adds: the
// oracle holds its model and produces its inputs, parameters and expected
// outputs (task/oracle_service.h); there is no reference source to build.
struct PyTorchInfo {
  std::filesystem::path file;
  std::string problem;  // the oracle's id for the loaded problem
  std::string device;   // where the oracle runs it: "cpu", "cuda:0"
  std::string torch_version;
  double scale = 1;          // module-level sizes multiplied by this before the module ran
  std::string policy;        // the named size policy that chose `scale`; empty: none
  std::string shapes;        // the sizes it ran with: "batch_size=4 (of 16), dim=1025"
  std::string source;        // the problem file's text, for prompts
  int num_forward_args = 0;  // inputs [0, n) are forward arguments, the rest state_dict()
  std::vector<std::string> input_kinds;    // per input: forward_arg, parameter, buffer
  std::vector<std::string> python_types;   // per input: "float", "int", "bool" or ""
  std::vector<std::string> python_values;  // per input: a constant number as JSON, or ""
  std::vector<std::string> distribution_names;
  bool scaling_allowed = false;  // the task's distributions include "scaled"
  int64_t model_seed = 0;
  // The forward draws random numbers (training-mode dropout): the oracle
  // seeds each forward with its value set's seed, and so must a candidate's.
  bool uses_rng = false;
  // Loaded as an estimate (OracleService::LoadMode::kEstimate): its shapes
  // and memory are a real load's, it has no values and is never evaluated.
  bool estimated = false;
  // Measured by the oracle at load (CUDA): device memory one forward takes
  // beyond its inputs (outputs and intermediates), and the model's state.
  int64_t forward_peak_bytes = 0;
  int64_t model_bytes = 0;
  // The most one draw of a value set takes (its inputs and get_inputs()'s
  // temporaries), over the task's distributions.
  int64_t draw_peak_bytes = 0;

  // Whether the model has state (parameters, buffers) that hone passes in
  // after the forward arguments.
  bool HasState() const { return static_cast<int>(input_kinds.size()) > num_forward_args; }
};

struct Task {
  std::string name;
  std::string category;
  std::string description;
  std::filesystem::path dir;
  std::filesystem::path reference;  // the host's (the CPU's) reference (reference.cpp)
  // Every other device the task was loaded for (the backends' tasks_as,
  // task/task_loader.h), with its reference: "cuda" -> reference.cu. A
  // device whose reference the task lacks has an empty file.
  struct DeviceReference {
    std::filesystem::path file;  // empty: the task has none for this device
    std::string default_name;    // the file it would be: "reference.cu"
  };
  std::map<std::string, DeviceReference> device_references;
  std::vector<TensorDecl> inputs;
  std::vector<TensorDecl> outputs;
  std::vector<ShapeCase> cases;
  std::optional<double> atol, rtol, precision;   // task overrides
  std::optional<double> required_matched_ratio;  // verify/tolerance.h
  // The task's speedup is against its reference as written (FlashInfer-Trace):
  // unless the user chooses, no torch.compile baseline is timed.
  bool eager_baseline_only = false;
  // Its problem file reads files in its own folder (a format's stored
  // inputs, copied there by hone): the sandbox must read that folder too.
  bool data_beside = false;
  std::optional<Expr> cost_bytes, cost_flops;
  int seeds = 3;
  int num_distributions = 2;
  std::set<std::string> lint_allow;    // [lint] allow: rules this task permits
  std::string hash;                    // content of the task definition and reference
  std::optional<PyTorchInfo> pytorch;  // set for a PyTorch-defined task

  Tolerance ToleranceFor(Dtype output_dtype) const;
  // The reference for a device (a backend's tasks_as: "cpu", "cuda"), or
  // Status::Invalid naming what is missing.
  Result<std::filesystem::path> ReferenceFor(const std::string& device) const;
  // The cases that run on a backend, in declaration order (the first is timed).
  std::vector<const ShapeCase*> CasesFor(const std::string& backend) const;
};

// Default tolerances per output dtype (docs/TASK_FORMAT.md).
Tolerance DefaultTolerance(Dtype t);

// Concrete shape of a declared tensor for one case.
Result<std::vector<int64_t>> ResolveShape(const TensorDecl& decl, const ShapeCase& c);

// Row-major strides in elements.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape);
int64_t NumElements(const std::vector<int64_t>& shape);
std::string ShapeString(const std::vector<int64_t>& shape);  // "[128, 1024]"

}  // namespace hone
