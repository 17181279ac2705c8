#include "task/task_loader.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <set>

#include "core/backend_names.h"
#include "core/fs.h"
#include "core/hash.h"
#include "task/toml_field_error.h"
#include "verify/lint.h"

namespace hone {
namespace {

Status CheckKnownKeys(const toml::table& t, const std::set<std::string>& known,
                      const std::string& where, const FieldError& err) {
  for (const auto& [k, v] : t) {
    std::string key(k.str());
    if (!known.count(key)) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      return err(v, where.empty() ? key : where + "." + key,
                 "unknown field (expected one of: " + list + ")");
    }
  }
  return Status::Ok();
}

Result<std::string> OptionalString(const toml::table& t, const char* key, std::string def,
                                   const std::string& where, const FieldError& err) {
  const toml::node* n = t.get(key);
  if (!n) return def;
  if (auto s = n->value<std::string>()) return *s;
  return err.WrongType(*n, where + key, "a string");
}

// A string that must be there and not be empty.
Result<std::string> RequiredString(const toml::table& t, const char* key, const std::string& where,
                                   const FieldError& err) {
  std::string field = where + "." + key;
  const toml::node* n = t.get(key);
  if (!n) return err(t, field, "required string is missing");
  auto s = n->value<std::string>();
  if (!s) return err.WrongType(*n, field, "a string");
  if (s->empty()) return err(*n, field, "must not be empty");
  return *s;
}

// A table, or Status naming what the field holds instead.
Result<const toml::table*> TableField(const toml::node& n, const std::string& field,
                                      const FieldError& err) {
  if (const toml::table* t = n.as_table()) return t;
  return err.WrongType(n, field, "a table");
}

// A number or an expression string.
Result<Expr> ExprField(const toml::node& n, const std::string& field, const FieldError& err) {
  if (n.is_integer()) return Expr::Parse(std::to_string(*n.value<int64_t>())).value();
  if (n.is_floating_point()) {
    auto d = n.value<double>();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    return Expr::Parse(buf).value();
  }
  if (auto s = n.value<std::string>()) {
    auto e = Expr::Parse(*s);
    if (!e.ok()) return err(n, field, e.status().message());
    return e;
  }
  return err.WrongType(n, field, "a number or an expression string");
}

Result<TensorDecl> ParseTensor(const toml::table& t, const std::string& where, bool is_input,
                               const FieldError& err) {
  std::set<std::string> known = {"name", "dtype", "shape"};
  if (is_input) known.insert("values");
  HONE_RETURN_IF_ERROR(CheckKnownKeys(t, known, where, err));
  TensorDecl d;
  HONE_ASSIGN_OR_RETURN(d.name, RequiredString(t, "name", where, err));
  HONE_ASSIGN_OR_RETURN(std::string dtype, RequiredString(t, "dtype", where, err));
  auto parsed = ParseDtype(dtype);
  if (!parsed)
    return err(*t.get("dtype"), where + ".dtype",
               "unknown dtype '" + dtype +
                   "' (f32 f64 f16 bf16 i8 u8 i16 i32 i64 bool, or an alias such as float32)");
  d.dtype = *parsed;
  const toml::node* shape_node = t.get("shape");
  if (!shape_node)
    return err(t, where + ".shape", "required array is missing (use [] for a scalar)");
  const toml::array* shape = shape_node->as_array();
  if (!shape)
    return err.WrongType(*shape_node, where + ".shape",
                         "an array of strings or integers, e.g. [\"B\", \"N\"] or [4, \"N\"]");
  if (shape->size() > HONE_MAX_DIMS)
    return err(*shape_node, where + ".shape",
               "at most " + std::to_string(HONE_MAX_DIMS) + " dimensions");
  for (size_t i = 0; i < shape->size(); ++i) {
    auto e = ExprField(*shape->get(i), where + ".shape[" + std::to_string(i) + "]", err);
    if (!e.ok()) return e.status();
    d.shape.push_back(std::move(e).value());
  }
  if (!is_input) return d;
  std::vector<std::string> texts;
  std::vector<const toml::node*> nodes;  // where each text was read, for messages
  if (const toml::node* v = t.get("values")) {
    if (auto s = v->value<std::string>()) {
      texts.push_back(*s);
      nodes.push_back(v);
    } else if (const toml::array* a = v->as_array()) {
      for (size_t i = 0; i < a->size(); ++i) {
        auto s2 = a->get(i)->value<std::string>();
        if (!s2)
          return err.WrongType(*a->get(i), where + ".values[" + std::to_string(i) + "]",
                               "a string");
        texts.push_back(*s2);
        nodes.push_back(a->get(i));
      }
    } else {
      return err.WrongType(*v, where + ".values", "a string or an array of strings");
    }
    if (texts.empty()) return err(*v, where + ".values", "must not be empty");
  } else if (IsFloating(d.dtype)) {
    texts = {"uniform(-1, 1)", "normal(0.5, 3)"};
  } else if (d.dtype == HONE_BOOL) {
    texts = {"bernoulli(0.5)"};
  } else {
    return err(t, where + ".values",
               "integer inputs need a distribution, e.g. values = [\"randint(0, N)\"]");
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    auto dist = Distribution::Parse(texts[i]);
    std::string field = where + ".values[" + std::to_string(i) + "]";
    if (!dist.ok())
      return i < nodes.size() ? err(*nodes[i], field, dist.status().message())
                              : err(field, dist.status().message());
    d.values.push_back(std::move(dist).value());
  }
  return d;
}

Status ParseTensors(const toml::table& root, const char* key, bool is_input,
                    std::vector<TensorDecl>& out, const FieldError& err) {
  const toml::node* n = root.get(key);
  if (!n) {
    if (is_input) return Status::Ok();
    return err(key, "at least one [[outputs]] table is required");
  }
  const toml::array* arr = n->as_array();
  if (!arr) return err.WrongType(*n, key, "an array of tables ([[" + std::string(key) + "]])");
  std::set<std::string> names;
  for (size_t i = 0; i < arr->size(); ++i) {
    std::string where = std::string(key) + "[" + std::to_string(i) + "]";
    HONE_ASSIGN_OR_RETURN(const toml::table* t, TableField(*arr->get(i), where, err));
    auto d = ParseTensor(*t, where, is_input, err);
    if (!d.ok()) return d.status();
    if (!names.insert(d->name).second)
      return err(*t->get("name"), where + ".name", "duplicate name '" + d->name + "'");
    out.push_back(std::move(d).value());
  }
  if (!is_input && out.empty()) return err(*n, key, "at least one output is required");
  return Status::Ok();
}

// backends = ["cuda"]: the devices a case runs on, each one of `devices`.
Status ParseBackends(const toml::node& v, const std::string& field, ShapeCase& c,
                     const std::vector<TaskDevice>& devices, const FieldError& err) {
  std::string known;
  for (size_t d = 0; d < devices.size(); ++d)
    known += (d == 0                    ? ""
              : d + 1 == devices.size() ? " or "
                                        : ", ") +
             ("\"" + devices[d].name + "\"");
  const toml::array* arr = v.as_array();
  if (!arr) return err.WrongType(v, field, "an array such as [\"cuda\"]");
  for (size_t b = 0; b < arr->size(); ++b) {
    const toml::node& e = *arr->get(b);
    std::string at = field + "[" + std::to_string(b) + "]";
    auto name = e.value<std::string>();
    if (!name) return err.WrongType(e, at, known);
    auto is = [&](const TaskDevice& d) { return d.name == *name; };
    if (std::none_of(devices.begin(), devices.end(), is))
      return err(e, at, "expected " + known + ", got \"" + *name + "\"");
    c.backends.push_back(*name);
  }
  return Status::Ok();
}

Status ParseCases(const toml::table& root, Task& task, const std::vector<TaskDevice>& devices,
                  const FieldError& err) {
  const toml::node* n = root.get("cases");
  if (!n) return err("cases", "at least one [[cases]] table is required");
  const toml::array* arr = n->as_array();
  if (!arr) return err.WrongType(*n, "cases", "an array of tables ([[cases]])");
  if (arr->empty()) return err(*n, "cases", "at least one [[cases]] table is required");
  for (size_t i = 0; i < arr->size(); ++i) {
    std::string where = "cases[" + std::to_string(i) + "]";
    const toml::table* t = arr->get(i)->as_table();
    if (!t) return err.WrongType(*arr->get(i), where, "a table of symbol = integer");
    ShapeCase c;
    for (const auto& [k, v] : *t) {
      std::string key(k.str());
      if (key == "backends") {
        HONE_RETURN_IF_ERROR(ParseBackends(v, where + ".backends", c, devices, err));
        continue;
      }
      if (!v.is_integer()) return err.WrongType(v, where + "." + key, "an integer");
      int64_t iv = *v.value<int64_t>();
      c.symbols[key] = static_cast<double>(iv);
      c.label += (c.label.empty() ? "" : " ") + key + "=" + std::to_string(iv);
    }
    if (c.label.empty()) c.label = "scalar";
    if (!c.backends.empty()) {
      c.label += " [";
      for (size_t b = 0; b < c.backends.size(); ++b) c.label += (b ? "," : "") + c.backends[b];
      c.label += "]";
    }
    task.cases.push_back(std::move(c));
  }
  return Status::Ok();
}

Status ParseTolerance(const toml::table& root, Task& task, const FieldError& err) {
  const toml::node* n = root.get("tolerance");
  if (!n) return Status::Ok();
  HONE_ASSIGN_OR_RETURN(const toml::table* t, TableField(*n, "tolerance", err));
  HONE_RETURN_IF_ERROR(CheckKnownKeys(*t, {"atol", "rtol", "precision"}, "tolerance", err));
  auto get = [&](const char* key, std::optional<double>& out) -> Status {
    const toml::node* v = t->get(key);
    if (!v) return Status::Ok();
    std::string field = std::string("tolerance.") + key;
    if (!v->is_number()) return err.WrongType(*v, field, "a number >= 0");
    double d = *v->value<double>();
    if (d < 0) return err(*v, field, fmt::format("expected a number >= 0, got {}", d));
    out = d;
    return Status::Ok();
  };
  HONE_RETURN_IF_ERROR(get("atol", task.atol));
  HONE_RETURN_IF_ERROR(get("rtol", task.rtol));
  return get("precision", task.precision);
}

Status ParseCostAndVerify(const toml::table& root, Task& task, const FieldError& err) {
  if (const toml::node* n = root.get("cost")) {
    HONE_ASSIGN_OR_RETURN(const toml::table* t, TableField(*n, "cost", err));
    HONE_RETURN_IF_ERROR(CheckKnownKeys(*t, {"bytes", "flops"}, "cost", err));
    if (const toml::node* b = t->get("bytes")) {
      auto e = ExprField(*b, "cost.bytes", err);
      if (!e.ok()) return e.status();
      task.cost_bytes = std::move(e).value();
    }
    if (const toml::node* f = t->get("flops")) {
      auto e = ExprField(*f, "cost.flops", err);
      if (!e.ok()) return e.status();
      task.cost_flops = std::move(e).value();
    }
  }
  if (const toml::node* n = root.get("verify")) {
    HONE_ASSIGN_OR_RETURN(const toml::table* t, TableField(*n, "verify", err));
    HONE_RETURN_IF_ERROR(CheckKnownKeys(*t, {"seeds"}, "verify", err));
    if (const toml::node* s = t->get("seeds")) {
      if (!s->is_integer()) return err.WrongType(*s, "verify.seeds", "an integer from 3 to 1000");
      int64_t v = *s->value<int64_t>();
      if (v < 3 || v > 1000)
        return err(*s, "verify.seeds",
                   "expected an integer from 3 to 1000, got " + std::to_string(v));
      task.seeds = static_cast<int>(v);
    }
  }
  return Status::Ok();
}

// [lint] allow = ["library"]: rules the task permits (a task about calling
// cuBLAS well, say). Unknown names are errors, not silently ignored.
Status ParseLint(const toml::table& root, Task& task, const FieldError& err) {
  const toml::node* n = root.get("lint");
  if (!n) return Status::Ok();
  HONE_ASSIGN_OR_RETURN(const toml::table* t, TableField(*n, "lint", err));
  HONE_RETURN_IF_ERROR(CheckKnownKeys(*t, {"allow"}, "lint", err));
  const toml::node* a = t->get("allow");
  if (!a) return Status::Ok();
  const toml::array* list = a->as_array();
  if (!list) return err.WrongType(*a, "lint.allow", "an array of rule names");
  for (size_t i = 0; i < list->size(); ++i) {
    const toml::node& e = (*list)[i];
    auto name = e.value<std::string>();
    std::string field = "lint.allow[" + std::to_string(i) + "]";
    if (!name) return err.WrongType(e, field, "a string");
    if (!IsLintRule(*name)) return err(e, field, "unknown lint rule '" + *name + "'");
    task.lint_allow.insert(*name);
  }
  return Status::Ok();
}

// Every expression must evaluate in every case.
Status ValidateAgainstCases(const Task& task, const FieldError& err) {
  auto defined = [](const ShapeCase& c) {
    std::string s;
    for (const auto& [k, v] : c.symbols) s += (s.empty() ? "" : ", ") + k;
    return s.empty() ? std::string("no symbols") : s;
  };
  auto check_expr = [&](const Expr& e, const std::string& field, bool integral) -> Status {
    for (size_t ci = 0; ci < task.cases.size(); ++ci) {
      const ShapeCase& c = task.cases[ci];
      for (const auto& sym : e.SymbolsUsed())
        if (!c.symbols.count(sym))
          return err(field, "unknown symbol '" + sym + "' (case " + std::to_string(ci + 1) +
                                " defines " + defined(c) + ")");
      if (integral) {
        auto v = e.EvalInt(c.symbols);
        if (!v.ok()) return err(field, v.status().message() + " in case " + c.label);
        if (*v < 0)
          return err(field, "negative size " + std::to_string(*v) + " in case " + c.label);
      } else if (auto v = e.Eval(c.symbols); !v.ok()) {
        return err(field, v.status().message() + " in case " + c.label);
      }
    }
    return Status::Ok();
  };
  auto check_tensors = [&](const std::vector<TensorDecl>& ts, const char* key) -> Status {
    for (size_t i = 0; i < ts.size(); ++i) {
      std::string where = std::string(key) + "[" + std::to_string(i) + "]";
      for (size_t d = 0; d < ts[i].shape.size(); ++d)
        HONE_RETURN_IF_ERROR(
            check_expr(ts[i].shape[d], where + ".shape[" + std::to_string(d) + "]", true));
      for (size_t v = 0; v < ts[i].values.size(); ++v)
        for (const auto& sym : ts[i].values[v].SymbolsUsed())
          for (const auto& c : task.cases)
            if (!c.symbols.count(sym))
              return err(where + ".values[" + std::to_string(v) + "]",
                         "unknown symbol '" + sym + "' (case " + c.label + ")");
    }
    return Status::Ok();
  };
  HONE_RETURN_IF_ERROR(check_tensors(task.inputs, "inputs"));
  HONE_RETURN_IF_ERROR(check_tensors(task.outputs, "outputs"));
  if (task.cost_bytes) HONE_RETURN_IF_ERROR(check_expr(*task.cost_bytes, "cost.bytes", false));
  if (task.cost_flops) HONE_RETURN_IF_ERROR(check_expr(*task.cost_flops, "cost.flops", false));
  return Status::Ok();
}

// A reference source that is not there, at the line that names it.
Status ReferenceError(const toml::table& root, const char* key, const std::filesystem::path& file,
                      const FieldError& err) {
  std::string what = "file '" + file.string() + "' not found";
  if (const toml::node* n = root.get(key)) return err(*n, key, what);
  return err(key, what);
}

// `<device>_reference`: the task.toml key of a device's reference other
// than the host's.
std::string ReferenceKey(const TaskDevice& d) { return d.name + "_reference"; }

// Each device's reference but the host's: the file task.toml names, else
// the device's default file when it is there.
Status ParseDeviceReferences(const toml::table& root, const std::vector<TaskDevice>& devices,
                             Task& task, const FieldError& err) {
  for (const TaskDevice& d : devices) {
    if (d.name == kHostBackend) continue;
    const std::string key = ReferenceKey(d);
    Task::DeviceReference& ref = task.device_references[d.name];
    ref.default_name = d.reference_file;
    HONE_ASSIGN_OR_RETURN(std::string named, OptionalString(root, key.c_str(), "", "", err));
    if (!named.empty()) {
      ref.file = task.dir / named;
      if (!std::filesystem::is_regular_file(ref.file))
        return ReferenceError(root, key.c_str(), ref.file, err);
    } else if (std::filesystem::is_regular_file(task.dir / d.reference_file)) {
      ref.file = task.dir / d.reference_file;
    }
  }
  return Status::Ok();
}

Result<Task> ParseTaskTable(const toml::table& root, const std::filesystem::path& dir,
                            const std::vector<TaskDevice>& devices, const FieldError& err) {
  std::set<std::string> keys = {"name",   "category", "description", "reference",
                                "inputs", "outputs",  "cases",       "tolerance",
                                "cost",   "verify",   "lint"};
  for (const TaskDevice& d : devices)
    if (d.name != kHostBackend) keys.insert(ReferenceKey(d));
  HONE_RETURN_IF_ERROR(CheckKnownKeys(root, keys, "", err));
  Task task;
  task.dir = dir;
  HONE_ASSIGN_OR_RETURN(task.name, OptionalString(root, "name", dir.filename().string(), "", err));
  HONE_ASSIGN_OR_RETURN(task.category, OptionalString(root, "category", "other", "", err));
  HONE_ASSIGN_OR_RETURN(task.description, OptionalString(root, "description", "", "", err));
  std::string ref;
  HONE_ASSIGN_OR_RETURN(ref, OptionalString(root, "reference", "reference.cpp", "", err));
  task.reference = dir / ref;
  if (!std::filesystem::is_regular_file(task.reference))
    return ReferenceError(root, "reference", task.reference, err);
  HONE_RETURN_IF_ERROR(ParseDeviceReferences(root, devices, task, err));
  HONE_RETURN_IF_ERROR(ParseTensors(root, "inputs", true, task.inputs, err));
  HONE_RETURN_IF_ERROR(ParseTensors(root, "outputs", false, task.outputs, err));
  HONE_RETURN_IF_ERROR(ParseCases(root, task, devices, err));
  HONE_RETURN_IF_ERROR(ParseTolerance(root, task, err));
  HONE_RETURN_IF_ERROR(ParseCostAndVerify(root, task, err));
  HONE_RETURN_IF_ERROR(ParseLint(root, task, err));
  HONE_RETURN_IF_ERROR(ValidateAgainstCases(task, err));
  size_t longest = 0;
  for (const auto& in : task.inputs) longest = std::max(longest, in.values.size());
  task.num_distributions = static_cast<int>(std::max<size_t>(2, longest));
  return task;
}

// For a folder that holds task folders: " (it holds task folders, such as X/a)".
std::string TaskFolderHint(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (IsNativeTaskDir(e.path())) return "; it holds task folders, such as " + e.path().string();
  return "";
}

}  // namespace

bool IsNativeTaskDir(const std::filesystem::path& dir) {
  return std::filesystem::is_regular_file(dir / "task.toml");
}

Result<std::filesystem::path> NativeTaskDir(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  fs::path p = path.lexically_normal();
  if (!p.empty() && p.filename().empty()) p = p.parent_path();
  std::error_code ec;
  fs::file_status st = fs::status(p, ec);
  if (!fs::exists(st)) return Status::Invalid(p.string() + ": no such task (not found)");
  if (fs::is_regular_file(st) && p.filename() == "task.toml")
    return p.has_parent_path() ? p.parent_path() : fs::current_path();
  if (!fs::is_directory(st))
    return Status::Invalid(p.string() +
                           ": not a task (a task is a folder with a task.toml, or a PyTorch "
                           "problem file .py)");
  if (!IsNativeTaskDir(p))
    return Status::Invalid(p.string() + ": not a native task (no task.toml in this folder)" +
                           TaskFolderHint(p));
  return p;
}

Result<Task> LoadNativeTask(const std::filesystem::path& path,
                            const std::vector<TaskDevice>& devices) {
  HONE_ASSIGN_OR_RETURN(std::filesystem::path dir, NativeTaskDir(path));
  std::filesystem::path file = dir / "task.toml";
  auto text = ReadFile(file);
  if (!text.ok()) return Status::Invalid(file.string() + ": " + text.status().message());
  FieldError err(file.string());
  toml::table root;
  try {
    root = toml::parse(*text, file.string());
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return Status::Invalid(file.string() + ":" + std::to_string(where.line) + ":" +
                           std::to_string(where.column) + ": " + std::string(e.description()));
  }
  auto task = ParseTaskTable(root, dir, devices, err);
  if (!task.ok()) return task.status();
  auto ref = ReadFile(task->reference);
  if (!ref.ok()) return Status::Invalid(err.file() + ": reference: " + ref.status().message());
  // The other devices' references, in the order of `devices`: the first as
  // its text, each later one after its name, so that a task's hash stays
  // what it was before a device it has no reference for was known.
  std::string others;
  size_t index = 0;
  for (const TaskDevice& d : devices) {
    if (d.name == kHostBackend) continue;
    const std::filesystem::path& f = task->device_references[d.name].file;
    if (!f.empty()) {
      auto r = ReadFile(f);
      if (!r.ok())
        return Status::Invalid(err.file() + ": " + ReferenceKey(d) + ": " + r.status().message());
      others += (index == 0 ? std::string() : std::string(1, '\0') + d.name + '\0') + *r;
    }
    ++index;
  }
  task->hash = ContentHash({*text, *ref, others});
  return task;
}

}  // namespace hone
