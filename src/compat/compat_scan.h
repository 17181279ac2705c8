// The static scan of a compat candidate (a KernelBench ModelNew .py file):
// what hone reads from it with Python's own parser, without running it,
// before any expensive stage. The scanner is python/hone_pyscan.py, with its
// parts beside it (hone_pyscope.py, hone_pyimports.py, hone_pyresolve.py,
// hone_pycalls.py; any Python 3.8+, torch not needed, about 50 ms); this is
// its C++ side.
//
// The scan finds how ModelNew is defined, every load_inline /
// cpp_extension.load call with its arguments resolved where they are
// static (so hone can build the extension itself, outside the sandbox,
// before the module runs: hone_extbuild.py, build/torch_extension.h), the
// kernels the file defines, and hints (side streams, CUDA graphs, libraries).
//
// Pure values and one subprocess; thread-safe. A file that does not parse is
// a successful scan with ok == false and `error`; Status errors are for the
// scanner itself (no Python could run it, a malformed reply).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "verify/lint.h"

namespace hone {

struct CompatModelNew {
  bool defined = false;
  std::string how;  // "class", "subclass", "assignment", "import", "other"; "" if not defined
  int line = 0;
};

struct CompatExtension {
  std::string call;  // "load_inline" or "load"
  int line = 0;
  std::string scope;  // "module" (built at import), or a qualname: "ModelNew.forward"
  bool in_try = false;
  bool resolved = false;
  std::string unresolved_reason;  // names the argument: "cuda_sources: calls open(...)"
  std::string name;               // the extension's name, when it resolved
  // Resolved: the canonical arguments (hone_extbuild.canonical_args), what
  // the oracle's prepare_extension takes. Unresolved: those that resolved.
  nlohmann::json args = nlohmann::json::object();
  std::string key;  // hone_extbuild.extension_key; "" unless resolved
};

struct CompatUses {
  bool side_streams = false;
  bool cuda_graphs = false;
  std::vector<std::string> external_libraries;
};

struct CompatScan {
  bool ok = false;    // the file parses
  std::string error;  // "<path>:<line>: SyntaxError: <msg>" when it does not
  CompatModelNew model_new;
  std::vector<CompatExtension> extensions;
  std::vector<std::string> kernels;         // __global__ names
  std::vector<std::string> triton_kernels;  // @triton.jit names
  // Functions decorated with a kernel decorator asked for (a DSL's:
  // ModelNewLoading::kernel_decorators), by name.
  std::vector<std::string> dsl_kernels;
  bool builds_extension = false;  // any extension call or Triton kernel
  CompatUses uses;
  // What its kernels are written in, as the scanner read them: "triton",
  // "load_inline", or "" (only PyTorch).
  std::string language;
  // What hone's static rules for ModelNew files found (python/hone_pylint.py),
  // in line order; the candidate's language decides which reject.
  std::vector<LintFinding> findings;

  // Every static finding on the file, for `hone lint` and the evaluation
  // alike: rule 'library' when it builds no kernel of its own (the classic
  // KernelBench non-answer), then `findings`.
  std::vector<LintFinding> AllFindings() const;
};

// The scanner's reply; a malformed one is Status::Invalid naming the field.
Result<CompatScan> CompatScanFromJson(const nlohmann::json& reply);

// Runs `<python> <python_dir>/hone_pyscan.py file` (20 s limit) and parses
// its reply. The interpreter: `python` when given, else $HONE_PYTHON, else
// `python3` on PATH, else /usr/bin/python3; when none can run the scanner
// the Status (Unavailable) names each one tried and why.
// `decorators`: dotted paths that mark a kernel of a language
// (ModelNewLoading::kernel_decorators), found as dsl_kernels.
Result<CompatScan> ScanCompatFile(const std::filesystem::path& file,
                                  const std::filesystem::path& python_dir,
                                  const std::string& python = "",
                                  const std::vector<std::string>& decorators = {});

}  // namespace hone
