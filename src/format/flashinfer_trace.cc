#include "format/flashinfer_trace.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "core/expr.h"
#include "core/fs.h"
#include "core/json_text.h"

namespace hone::flashinfer {

namespace {

using ojson = nlohmann::ordered_json;

const std::set<std::string>& SupportedDtypes() {
  static const std::set<std::string> s = {"float32", "float16", "bfloat16", "float64", "int64",
                                          "int32",   "int16",   "int8",     "uint8",   "bool"};
  return s;
}

// The format's dtypes hone knows but does not evaluate yet.
const std::set<std::string>& KnownUnsupportedDtypes() {
  static const std::set<std::string> s = {"float8_e4m3fn", "float8_e5m2", "float4_e2m1",
                                          "float4_e2m1fn_x2"};
  return s;
}

// Errors name the file, then the field path ("inputs.x.dtype").
class Where {
 public:
  explicit Where(std::string file) : file_(std::move(file)) {}
  Status Error(const std::string& field, const std::string& what) const {
    return Status::Invalid(file_ + ": " + (field.empty() ? "" : field + ": ") + what);
  }

 private:
  std::string file_;
};

bool IsNull(const ojson& j, const char* key) { return !j.contains(key) || j[key].is_null(); }

Result<std::string> RequiredString(const ojson& j, const char* key, const Where& w,
                                   const std::string& prefix = "") {
  std::string field = prefix + key;
  if (IsNull(j, key)) return w.Error(field, "required, missing");
  if (!j[key].is_string()) return w.Error(field, "expected a string, got " + JsonText(j[key]));
  std::string s = j[key].get<std::string>();
  if (s.empty()) return w.Error(field, "must not be empty");
  return s;
}

Result<std::string> OptionalString(const ojson& j, const char* key, const Where& w,
                                   const std::string& prefix = "") {
  if (IsNull(j, key)) return std::string();
  if (!j[key].is_string())
    return w.Error(prefix + key, "expected a string, got " + JsonText(j[key]));
  return j[key].get<std::string>();
}

Result<std::vector<std::string>> StringList(const ojson& j, const char* key, const Where& w,
                                            const std::string& prefix = "") {
  std::vector<std::string> out;
  if (IsNull(j, key)) return out;
  if (!j[key].is_array()) return w.Error(prefix + key, "expected a list of strings");
  for (size_t i = 0; i < j[key].size(); ++i) {
    if (!j[key][i].is_string())
      return w.Error(prefix + key + "[" + std::to_string(i) + "]", "expected a string");
    out.push_back(j[key][i].get<std::string>());
  }
  return out;
}

bool IsIdentifier(const std::string& s) {
  static const std::regex id("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, id);
}

bool IsDigits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

Result<ojson> ParseJsonFile(const std::filesystem::path& file) {
  auto text = ReadFile(file);
  if (!text.ok()) return Status::Invalid(file.string() + ": cannot read the file");
  ojson j = ojson::parse(*text, nullptr, false);
  if (j.is_discarded()) return Status::Invalid(file.string() + ": not valid JSON");
  if (!j.is_object()) return Status::Invalid(file.string() + ": expected a JSON object");
  return j;
}

Result<Axis> ReadAxis(const std::string& name, const ojson& j, const Where& w) {
  std::string field = "axes." + name;
  if (!IsIdentifier(name)) return w.Error(field, "an axis name must be an identifier");
  if (!j.is_object()) return w.Error(field, "expected an object with a \"type\"");
  Axis a;
  a.name = name;
  HONE_ASSIGN_OR_RETURN(a.description, OptionalString(j, "description", w, field + "."));
  HONE_ASSIGN_OR_RETURN(std::string type, RequiredString(j, "type", w, field + "."));
  if (type == "const") {
    a.kind = Axis::Kind::kConst;
    if (IsNull(j, "value") || !j["value"].is_number_integer() || j["value"].get<int64_t>() < 0)
      return w.Error(field + ".value", "a const axis needs an integer value >= 0");
    a.value = j["value"].get<int64_t>();
  } else if (type == "var") {
    a.kind = Axis::Kind::kVar;
  } else if (type == "expr") {
    a.kind = Axis::Kind::kExpr;
    HONE_ASSIGN_OR_RETURN(a.expression, RequiredString(j, "expression", w, field + "."));
  } else {
    return w.Error(field + ".type",
                   "expected \"const\", \"var\" or \"expr\", got \"" + type + "\"");
  }
  return a;
}

Result<TensorSpec> ReadTensor(const std::string& role, const std::string& name, const ojson& j,
                              const Definition& def, const Where& w) {
  std::string field = role + "." + name;
  if (!IsIdentifier(name)) return w.Error(field, "a name must be a Python identifier");
  if (!j.is_object()) return w.Error(field, "expected an object with \"shape\" and \"dtype\"");
  TensorSpec t;
  t.name = name;
  HONE_ASSIGN_OR_RETURN(t.description, OptionalString(j, "description", w, field + "."));
  HONE_ASSIGN_OR_RETURN(t.dtype, RequiredString(j, "dtype", w, field + "."));
  if (KnownUnsupportedDtypes().count(t.dtype))
    return w.Error(field + ".dtype", "'" + t.dtype +
                                         "' is a FlashInfer-Trace dtype that hone does not "
                                         "evaluate yet (it takes float32, float16, bfloat16, "
                                         "float64, int64, int32, int16, int8, uint8 and bool)");
  if (!SupportedDtypes().count(t.dtype))
    return w.Error(field + ".dtype", "unknown dtype '" + t.dtype +
                                         "' (FlashInfer-Trace's: float32, float16, bfloat16, "
                                         "float8_e4m3fn, float8_e5m2, float4_e2m1, int64, "
                                         "int32, int16, int8, bool)");
  if (!j.contains("shape")) return w.Error(field + ".shape", "required (null for a scalar)");
  if (j["shape"].is_null()) {
    t.scalar = true;
    return t;
  }
  if (!j["shape"].is_array())
    return w.Error(field + ".shape", "expected a list of axis names or null");
  for (size_t i = 0; i < j["shape"].size(); ++i) {
    const ojson& d = j["shape"][i];
    std::string at = field + ".shape[" + std::to_string(i) + "]";
    if (!d.is_string()) return w.Error(at, "expected an axis name, got " + JsonText(d));
    std::string axis = d.get<std::string>();
    if (!IsDigits(axis) && !def.FindAxis(axis))
      return w.Error(at, "'" + axis + "' is not an axis of the definition");
    t.shape.push_back(axis);
  }
  return t;
}

Status ReadTensors(const ojson& j, const char* role, Definition& def, std::vector<TensorSpec>& out,
                   const Where& w) {
  if (IsNull(j, role)) return w.Error(role, "required, missing");
  if (!j[role].is_object()) return w.Error(role, "expected an object of name: {shape, dtype}");
  for (const auto& [name, spec] : j[role].items()) {
    HONE_ASSIGN_OR_RETURN(TensorSpec t, ReadTensor(role, name, spec, def, w));
    out.push_back(std::move(t));
  }
  return Status::Ok();
}

// An expression axis names only axes and integer arithmetic.
Status CheckExpressions(const Definition& def, const Where& w) {
  for (const Axis& a : def.axes) {
    if (a.kind != Axis::Kind::kExpr) continue;
    auto e = Expr::Parse(a.expression);
    if (!e.ok()) return w.Error("axes." + a.name + ".expression", e.status().message());
    for (const auto& used : e->SymbolsUsed())
      if (!def.FindAxis(used) || used == a.name)
        return w.Error("axes." + a.name + ".expression", "'" + used + "' is not another axis");
  }
  return Status::Ok();
}

Status CheckReference(const Definition& def, const Where& w) {
  static const std::regex run(R"((^|\n)def\s+run\s*\()");
  if (!std::regex_search(def.reference, run))
    return w.Error("reference", "defines no top-level function run(...)");
  return Status::Ok();
}

Result<InputSource> ReadInputSource(const std::string& field, const ojson& j, const Where& w) {
  InputSource s;
  if (!j.is_object()) return w.Error(field, "expected an object with a \"type\"");
  HONE_ASSIGN_OR_RETURN(std::string type, RequiredString(j, "type", w, field + "."));
  if (type == "random") {
    s.kind = InputSource::Kind::kRandom;
  } else if (type == "scalar") {
    s.kind = InputSource::Kind::kScalar;
    if (IsNull(j, "value") || !(j["value"].is_number() || j["value"].is_boolean()))
      return w.Error(field + ".value", "a scalar input needs a number or a boolean");
    s.value_json = JsonText(j["value"]);
  } else if (type == "safetensors") {
    s.kind = InputSource::Kind::kSafetensors;
    HONE_ASSIGN_OR_RETURN(s.path, RequiredString(j, "path", w, field + "."));
    HONE_ASSIGN_OR_RETURN(s.tensor_key, RequiredString(j, "tensor_key", w, field + "."));
  } else if (type == "custom") {
    s.kind = InputSource::Kind::kCustom;
  } else {
    return w.Error(field + ".type",
                   "expected \"random\", \"scalar\", \"safetensors\" or "
                   "\"custom\", got \"" +
                       type + "\"");
  }
  return s;
}

Result<std::optional<double>> OptionalNumber(const ojson& j, const char* key, const Where& w,
                                             const std::string& prefix) {
  if (IsNull(j, key)) return std::optional<double>();
  if (!j[key].is_number() || j[key].get<double>() < 0)
    return w.Error(prefix + key, "expected a number >= 0");
  return std::optional<double>(j[key].get<double>());
}

Result<WorkloadTolerance> ReadTolerance(const ojson& j, const Where& w) {
  WorkloadTolerance t;
  if (IsNull(j, "tolerance")) return t;
  const ojson& tol = j["tolerance"];
  if (!tol.is_object()) return w.Error("tolerance", "expected an object");
  // SOL-ExecBench names them max_atol and max_rtol; plain atol/rtol too.
  HONE_ASSIGN_OR_RETURN(t.atol, OptionalNumber(tol, "max_atol", w, "tolerance."));
  if (!t.atol) {
    HONE_ASSIGN_OR_RETURN(t.atol, OptionalNumber(tol, "atol", w, "tolerance."));
  }
  HONE_ASSIGN_OR_RETURN(t.rtol, OptionalNumber(tol, "max_rtol", w, "tolerance."));
  if (!t.rtol) {
    HONE_ASSIGN_OR_RETURN(t.rtol, OptionalNumber(tol, "rtol", w, "tolerance."));
  }
  HONE_ASSIGN_OR_RETURN(t.required_matched_ratio,
                        OptionalNumber(tol, "required_matched_ratio", w, "tolerance."));
  if (t.required_matched_ratio && *t.required_matched_ratio > 1)
    return w.Error("tolerance.required_matched_ratio", "must be at most 1");
  return t;
}

Result<Workload> ReadWorkload(const ojson& line, const Definition& def, Workload w0) {
  Where w(w0.where());
  Workload out = std::move(w0);
  const ojson* body = &line;
  if (line.contains("workload") && line["workload"].is_object()) {
    HONE_ASSIGN_OR_RETURN(out.definition, OptionalString(line, "definition", w));
    body = &line["workload"];
  }
  const ojson& j = *body;
  HONE_ASSIGN_OR_RETURN(out.uuid, OptionalString(j, "uuid", w, "workload."));
  if (IsNull(j, "axes") || !j["axes"].is_object())
    return w.Error("workload.axes", "required: an object of var axis: size");
  std::set<std::string> given;
  for (const auto& [name, value] : j["axes"].items()) {
    const Axis* a = def.FindAxis(name);
    if (!a) return w.Error("workload.axes." + name, "not an axis of definition " + def.name);
    if (a->kind != Axis::Kind::kVar)
      return w.Error("workload.axes." + name,
                     "a " + std::string(a->kind == Axis::Kind::kConst ? "const" : "expr") +
                         " axis takes no value from a workload");
    if (!value.is_number_integer() || value.get<int64_t>() <= 0)
      return w.Error("workload.axes." + name, "expected an integer > 0, got " + JsonText(value));
    out.axes.emplace_back(name, value.get<int64_t>());
    given.insert(name);
  }
  for (const Axis& a : def.axes)
    if (a.kind == Axis::Kind::kVar && !given.count(a.name))
      return w.Error("workload.axes",
                     "the var axis '" + a.name + "' of definition " + def.name + " has no value");
  if (!IsNull(j, "inputs")) {
    if (!j["inputs"].is_object()) return w.Error("workload.inputs", "expected an object");
    for (const auto& [name, spec] : j["inputs"].items()) {
      bool known = std::any_of(def.inputs.begin(), def.inputs.end(),
                               [&](const TensorSpec& t) { return t.name == name; });
      if (!known) return w.Error("workload.inputs." + name, "not an input of " + def.name);
      HONE_ASSIGN_OR_RETURN(InputSource s, ReadInputSource("workload.inputs." + name, spec, w));
      if (s.kind == InputSource::Kind::kCustom && def.custom_inputs_entrypoint.empty())
        return w.Error("workload.inputs." + name,
                       "a custom input needs the definition's custom_inputs_entrypoint");
      out.inputs.emplace_back(name, std::move(s));
    }
  }
  HONE_ASSIGN_OR_RETURN(out.tolerance, ReadTolerance(j, w));
  return out;
}

Status CheckSourcePath(const std::string& path, const Where& w, const std::string& field) {
  std::filesystem::path p(path);
  if (path.empty() || p.is_absolute()) return w.Error(field, "must be a relative path");
  for (const auto& part : p)
    if (part == "..") return w.Error(field, "must not leave the solution's folder ('..')");
  return Status::Ok();
}

Status ReadSpec(const ojson& j, Solution& s, const Where& w) {
  if (IsNull(j, "spec") || !j["spec"].is_object()) return w.Error("spec", "required, missing");
  const ojson& spec = j["spec"];
  if (!IsNull(spec, "language")) {
    HONE_ASSIGN_OR_RETURN(std::string l, RequiredString(spec, "language", w, "spec."));
    s.languages.push_back(l);
  } else {
    HONE_ASSIGN_OR_RETURN(s.languages, StringList(spec, "languages", w, "spec."));
  }
  if (s.languages.empty()) return w.Error("spec.language", "required, missing");
  for (auto& l : s.languages)
    std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  HONE_ASSIGN_OR_RETURN(std::string entry, RequiredString(spec, "entry_point", w, "spec."));
  size_t sep = entry.find("::");
  if (sep == std::string::npos || entry.find("::", sep + 2) != std::string::npos || sep == 0 ||
      sep + 2 >= entry.size())
    return w.Error("spec.entry_point", "expected \"file::function\", got \"" + entry + "\"");
  s.entry_file = entry.substr(0, sep);
  s.entry_symbol = entry.substr(sep + 2);
  HONE_RETURN_IF_ERROR(CheckSourcePath(s.entry_file, w, "spec.entry_point"));
  if (!IsNull(spec, "destination_passing_style")) {
    if (!spec["destination_passing_style"].is_boolean())
      return w.Error("spec.destination_passing_style", "expected true or false");
    s.destination_passing = spec["destination_passing_style"].get<bool>();
  }
  HONE_ASSIGN_OR_RETURN(s.binding, OptionalString(spec, "binding", w, "spec."));
  if (!s.binding.empty() && s.binding != "torch" && s.binding != "tvm-ffi")
    return w.Error("spec.binding", "expected \"torch\" or \"tvm-ffi\", got \"" + s.binding + "\"");
  HONE_ASSIGN_OR_RETURN(s.dependencies, StringList(spec, "dependencies", w, "spec."));
  if (!IsNull(spec, "target_hardware") && spec["target_hardware"].is_string()) {
    s.target_hardware.push_back(spec["target_hardware"].get<std::string>());
  } else {
    HONE_ASSIGN_OR_RETURN(s.target_hardware, StringList(spec, "target_hardware", w, "spec."));
  }
  return Status::Ok();
}

Status ReadSources(const ojson& j, Solution& s, const Where& w) {
  if (IsNull(j, "sources") || !j["sources"].is_array() || j["sources"].empty())
    return w.Error("sources", "required: a list of {path, content}");
  std::set<std::string> seen;
  for (size_t i = 0; i < j["sources"].size(); ++i) {
    const ojson& src = j["sources"][i];
    std::string field = "sources[" + std::to_string(i) + "]";
    if (!src.is_object()) return w.Error(field, "expected {path, content}");
    SourceFile f;
    HONE_ASSIGN_OR_RETURN(f.path, RequiredString(src, "path", w, field + "."));
    HONE_RETURN_IF_ERROR(CheckSourcePath(f.path, w, field + ".path"));
    HONE_ASSIGN_OR_RETURN(f.content, RequiredString(src, "content", w, field + "."));
    if (!seen.insert(f.path).second) return w.Error(field + ".path", "'" + f.path + "' twice");
    s.sources.push_back(std::move(f));
  }
  if (!s.EntrySource())
    return w.Error("spec.entry_point", "the entry file '" + s.entry_file + "' is not in sources");
  return Status::Ok();
}

}  // namespace

const Axis* Definition::FindAxis(const std::string& n) const {
  for (const Axis& a : axes)
    if (a.name == n) return &a;
  return nullptr;
}

std::string Workload::where() const { return file.string() + ":" + std::to_string(line); }

const SourceFile* Solution::EntrySource() const {
  for (const SourceFile& f : sources)
    if (f.path == entry_file) return &f;
  return nullptr;
}

bool IsSupportedDtype(const std::string& dtype) { return SupportedDtypes().count(dtype) > 0; }

Result<Definition> ReadDefinition(const std::filesystem::path& file) {
  HONE_ASSIGN_OR_RETURN(ojson j, ParseJsonFile(file));
  Where w(file.string());
  Definition d;
  d.file = file;
  HONE_ASSIGN_OR_RETURN(d.name, RequiredString(j, "name", w));
  HONE_ASSIGN_OR_RETURN(d.op_type, OptionalString(j, "op_type", w));
  HONE_ASSIGN_OR_RETURN(d.description, OptionalString(j, "description", w));
  HONE_ASSIGN_OR_RETURN(d.reference, RequiredString(j, "reference", w));
  HONE_ASSIGN_OR_RETURN(d.constraints, StringList(j, "constraints", w));
  HONE_ASSIGN_OR_RETURN(d.tags, StringList(j, "tags", w));
  HONE_ASSIGN_OR_RETURN(d.custom_inputs_entrypoint,
                        OptionalString(j, "custom_inputs_entrypoint", w));
  if (IsNull(j, "axes") || !j["axes"].is_object())
    return w.Error("axes", "required: an object of axis name: {type, ...}");
  for (const auto& [name, spec] : j["axes"].items()) {
    HONE_ASSIGN_OR_RETURN(Axis a, ReadAxis(name, spec, w));
    d.axes.push_back(std::move(a));
  }
  HONE_RETURN_IF_ERROR(CheckExpressions(d, w));
  HONE_RETURN_IF_ERROR(ReadTensors(j, "inputs", d, d.inputs, w));
  HONE_RETURN_IF_ERROR(ReadTensors(j, "outputs", d, d.outputs, w));
  if (d.outputs.empty()) return w.Error("outputs", "the definition has no output");
  for (const TensorSpec& o : d.outputs)
    for (const TensorSpec& i : d.inputs)
      if (o.name == i.name) return w.Error("outputs." + o.name, "also the name of an input");
  HONE_RETURN_IF_ERROR(CheckReference(d, w));
  return d;
}

Result<std::vector<Workload>> ReadWorkloads(const std::filesystem::path& file,
                                            const Definition& def) {
  auto text = ReadFile(file);
  if (!text.ok()) return Status::Invalid(file.string() + ": cannot read the workload file");
  std::vector<Workload> out;
  std::istringstream lines(*text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Workload w0;
    w0.file = file;
    w0.line = number;
    ojson j = ojson::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return Status::Invalid(w0.where() + ": not a JSON object");
    if (j.contains("definition") && j["definition"].is_string() &&
        j["definition"].get<std::string>() != def.name)
      continue;  // another definition's workload in a shared file
    HONE_ASSIGN_OR_RETURN(Workload w, ReadWorkload(j, def, std::move(w0)));
    if (w.uuid.empty()) w.uuid = "line" + std::to_string(number);
    out.push_back(std::move(w));
  }
  if (out.empty())
    return Status::Invalid(file.string() + ": holds no workload of definition " + def.name);
  return out;
}

Result<Solution> ReadSolution(const std::filesystem::path& file) {
  HONE_ASSIGN_OR_RETURN(ojson j, ParseJsonFile(file));
  Where w(file.string());
  Solution s;
  s.file = file;
  HONE_ASSIGN_OR_RETURN(s.name, RequiredString(j, "name", w));
  HONE_ASSIGN_OR_RETURN(s.definition, RequiredString(j, "definition", w));
  HONE_ASSIGN_OR_RETURN(s.author, OptionalString(j, "author", w));
  HONE_ASSIGN_OR_RETURN(s.description, OptionalString(j, "description", w));
  HONE_RETURN_IF_ERROR(ReadSpec(j, s, w));
  HONE_RETURN_IF_ERROR(ReadSources(j, s, w));
  return s;
}

FileKind Classify(const std::filesystem::path& file) {
  if (file.extension() != ".json") return FileKind::kOther;
  auto text = ReadFile(file);
  if (!text.ok()) return FileKind::kOther;
  ojson j = ojson::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return FileKind::kOther;
  if (j.contains("axes") && j.contains("inputs") && j.contains("outputs") &&
      j.contains("reference"))
    return FileKind::kDefinition;
  if (j.contains("spec") && j.contains("sources")) return FileKind::kSolution;
  return FileKind::kOther;
}

}  // namespace hone::flashinfer
