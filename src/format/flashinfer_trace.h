// FlashInfer-Trace, the task format of FlashInfer-Bench and NVIDIA's
// SOL-ExecBench, read as the format's own documentation defines it:
//
//   definition (JSON): symbolic axes (const with a value, var, or SOL's
//     expr), typed inputs and outputs over them in calling order (shape
//     null: a Python scalar), constraints, and a PyTorch `reference` whose
//     `run(*inputs)` returns the outputs;
//   workloads (JSONL): the var axes' values and how each input is made
//     (random, scalar, safetensors; SOL's custom), one per line, bare or
//     wrapped as {"definition", "workload", ...} (FlashInfer-Bench's form),
//     with SOL's optional per-workload tolerance;
//   solution (JSON): spec.language (or SOL's spec.languages), entry point
//     "file::function", destination-passing style (default true), binding,
//     and the sources as path and content.
//
// Unknown keys are ignored and optional keys may be null, as the format's
// own loaders do. Key order is kept: the order of inputs and outputs is the
// calling order. Every error is Status::Invalid naming the file (and line,
// for JSONL) and the field, e.g. "defs/rms.json: inputs.x.dtype: unknown
// dtype 'float12'".
//
// Values only; thread-compatible.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone::flashinfer {

struct Axis {
  std::string name;
  enum class Kind { kConst, kVar, kExpr } kind = Kind::kVar;
  int64_t value = 0;       // kConst
  std::string expression;  // kExpr (SOL-ExecBench)
  std::string description;
};

struct TensorSpec {
  std::string name;
  bool scalar = false;             // shape null: a Python number
  std::vector<std::string> shape;  // axis names (or digit literals)
  std::string dtype;               // the format's name: "bfloat16", "int32", ...
  std::string description;
};

struct Definition {
  std::filesystem::path file;
  std::string name, op_type, description, reference;
  std::vector<Axis> axes;
  std::vector<TensorSpec> inputs, outputs;
  std::vector<std::string> constraints, tags;
  std::string custom_inputs_entrypoint;  // SOL-ExecBench; empty: none

  const Axis* FindAxis(const std::string& name) const;
};

struct InputSource {
  enum class Kind { kRandom, kScalar, kSafetensors, kCustom } kind = Kind::kRandom;
  std::string value_json;  // kScalar: the value as JSON
  std::string path, tensor_key;
};

struct WorkloadTolerance {
  std::optional<double> atol, rtol, required_matched_ratio;
};

struct Workload {
  std::string uuid;
  std::vector<std::pair<std::string, int64_t>> axes;  // the var axes' values
  std::vector<std::pair<std::string, InputSource>> inputs;
  WorkloadTolerance tolerance;
  std::filesystem::path file;
  int line = 0;            // 1-based line of the JSONL file
  std::string definition;  // FlashInfer-Bench's wrapper names it; "" when bare

  // "file:line" for messages.
  std::string where() const;
};

struct SourceFile {
  std::string path;  // relative, no ".."
  std::string content;
};

struct Solution {
  std::filesystem::path file;
  std::string name, definition, author, description;
  std::vector<std::string> languages;  // spec.language, or SOL's spec.languages
  std::string entry_file, entry_symbol;
  bool destination_passing = true;
  std::string binding;  // "torch", "tvm-ffi" or "" (the format's default)
  std::vector<std::string> dependencies, target_hardware;
  std::vector<SourceFile> sources;

  const SourceFile* EntrySource() const;
  // The language hone runs it as: "python", "triton", "cuda", "cpp", ...
  std::string language() const { return languages.empty() ? "" : languages.front(); }
};

// Reads and checks one definition file.
Result<Definition> ReadDefinition(const std::filesystem::path& file);
// Every workload of a JSONL file, checked against `def`; those of other
// definitions (a wrapped line naming another) are left out. A file that
// holds none for `def` is an error naming it.
Result<std::vector<Workload>> ReadWorkloads(const std::filesystem::path& file,
                                            const Definition& def);
// Reads and checks one solution file.
Result<Solution> ReadSolution(const std::filesystem::path& file);

// The format's dtype names that hone evaluates (float32, float16, bfloat16,
// float64, int64, int32, int16, int8, uint8, bool); the format's others
// (float8_*, float4_*) are known but refused with a message saying so.
bool IsSupportedDtype(const std::string& dtype);

// Whether a JSON file looks like a definition (has "axes", "inputs",
// "outputs" and "reference"), a solution ("spec" and "sources"), or
// neither; unreadable or non-JSON files are neither.
enum class FileKind { kOther, kDefinition, kSolution };
FileKind Classify(const std::filesystem::path& file);

}  // namespace hone::flashinfer
