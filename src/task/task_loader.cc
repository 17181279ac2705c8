#include "task/task_loader.h"

#include <toml++/toml.h>

#include <algorithm>
#include <set>

#include "core/fs.h"
#include "core/hash.h"
#include "verify/lint.h"

namespace hone {
namespace {

// Collects field paths so messages read "inputs[0].shape[1]: ...".
class FieldError {
 public:
  explicit FieldError(std::string file) : file_(std::move(file)) {}
  Status operator()(const std::string& field, const std::string& what) const {
    return Status::Invalid(file_ + ": " + field + ": " + what);
  }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

Status CheckKnownKeys(const toml::table& t, const std::set<std::string>& known,
                      const std::string& where, const FieldError& err) {
  for (const auto& [k, v] : t) {
    std::string key(k.str());
    if (!known.count(key)) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      return err(where.empty() ? key : where + "." + key,
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
  return err(where + key, "expected a string");
}

// A number or an expression string.
Result<Expr> ExprField(const toml::node& n, const std::string& field, const FieldError& err) {
  if (auto i = n.value<int64_t>()) return Expr::Parse(std::to_string(*i)).value();
  if (auto d = n.value<double>()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    return Expr::Parse(buf).value();
  }
  if (auto s = n.value<std::string>()) {
    auto e = Expr::Parse(*s);
    if (!e.ok()) return err(field, e.status().message());
    return e;
  }
  return err(field, "expected a number or an expression string");
}

Result<TensorDecl> ParseTensor(const toml::table& t, const std::string& where, bool is_input,
                               const FieldError& err) {
  std::set<std::string> known = {"name", "dtype", "shape"};
  if (is_input) known.insert("values");
  HONE_RETURN_IF_ERROR(CheckKnownKeys(t, known, where, err));
  TensorDecl d;
  auto name = t["name"].value<std::string>();
  if (!name || name->empty()) return err(where + ".name", "required string is missing");
  d.name = *name;
  auto dtype = t["dtype"].value<std::string>();
  if (!dtype) return err(where + ".dtype", "required string is missing");
  auto parsed = ParseDtype(*dtype);
  if (!parsed)
    return err(where + ".dtype",
               "unknown dtype '" + *dtype + "' (f32 f64 f16 bf16 i8 u8 i16 i32 i64 bool)");
  d.dtype = *parsed;
  const toml::array* shape = t["shape"].as_array();
  if (!shape) return err(where + ".shape", "required array is missing (use [] for a scalar)");
  if (shape->size() > HONE_MAX_DIMS)
    return err(where + ".shape", "at most " + std::to_string(HONE_MAX_DIMS) + " dimensions");
  for (size_t i = 0; i < shape->size(); ++i) {
    auto e = ExprField(*shape->get(i), where + ".shape[" + std::to_string(i) + "]", err);
    if (!e.ok()) return e.status();
    d.shape.push_back(std::move(e).value());
  }
  if (!is_input) return d;
  std::vector<std::string> texts;
  if (const toml::node* v = t.get("values")) {
    if (auto s = v->value<std::string>()) {
      texts.push_back(*s);
    } else if (const toml::array* a = v->as_array()) {
      for (size_t i = 0; i < a->size(); ++i) {
        auto s2 = a->get(i)->value<std::string>();
        if (!s2) return err(where + ".values[" + std::to_string(i) + "]", "expected a string");
        texts.push_back(*s2);
      }
    } else {
      return err(where + ".values", "expected a string or an array of strings");
    }
  } else if (IsFloating(d.dtype)) {
    texts = {"uniform(-1, 1)", "normal(0.5, 3)"};
  } else if (d.dtype == HONE_BOOL) {
    texts = {"bernoulli(0.5)"};
  } else {
    return err(where + ".values",
               "integer inputs need a distribution, e.g. values = [\"randint(0, N)\"]");
  }
  if (texts.empty()) return err(where + ".values", "must not be empty");
  for (size_t i = 0; i < texts.size(); ++i) {
    auto dist = Distribution::Parse(texts[i]);
    if (!dist.ok())
      return err(where + ".values[" + std::to_string(i) + "]", dist.status().message());
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
  if (!arr) return err(key, "expected an array of tables ([[" + std::string(key) + "]])");
  std::set<std::string> names;
  for (size_t i = 0; i < arr->size(); ++i) {
    std::string where = std::string(key) + "[" + std::to_string(i) + "]";
    const toml::table* t = arr->get(i)->as_table();
    if (!t) return err(where, "expected a table");
    auto d = ParseTensor(*t, where, is_input, err);
    if (!d.ok()) return d.status();
    if (!names.insert(d->name).second)
      return err(where + ".name", "duplicate name '" + d->name + "'");
    out.push_back(std::move(d).value());
  }
  if (!is_input && out.empty()) return err(key, "at least one output is required");
  return Status::Ok();
}

Status ParseCases(const toml::table& root, Task& task, const FieldError& err) {
  const toml::array* arr = root["cases"].as_array();
  if (!arr || arr->empty()) return err("cases", "at least one [[cases]] table is required");
  for (size_t i = 0; i < arr->size(); ++i) {
    std::string where = "cases[" + std::to_string(i) + "]";
    const toml::table* t = arr->get(i)->as_table();
    if (!t) return err(where, "expected a table of symbol = integer");
    ShapeCase c;
    for (const auto& [k, v] : *t) {
      std::string key(k.str());
      if (key == "backends") {
        const toml::array* arr2 = v.as_array();
        if (!arr2) return err(where + ".backends", "expected an array such as [\"cuda\"]");
        for (size_t b = 0; b < arr2->size(); ++b) {
          auto name = arr2->get(b)->value<std::string>();
          if (!name || (*name != "cpu" && *name != "cuda"))
            return err(where + ".backends[" + std::to_string(b) + "]",
                       "expected \"cpu\" or \"cuda\"");
          c.backends.push_back(*name);
        }
        continue;
      }
      auto iv = v.value<int64_t>();
      if (!iv || v.is_floating_point()) return err(where + "." + key, "expected an integer");
      c.symbols[key] = static_cast<double>(*iv);
      c.label += (c.label.empty() ? "" : " ") + key + "=" + std::to_string(*iv);
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
  const toml::table* t = n->as_table();
  if (!t) return err("tolerance", "expected a table");
  HONE_RETURN_IF_ERROR(CheckKnownKeys(*t, {"atol", "rtol", "precision"}, "tolerance", err));
  auto get = [&](const char* key, std::optional<double>& out) -> Status {
    const toml::node* v = t->get(key);
    if (!v) return Status::Ok();
    auto d = v->value<double>();
    if (!d || *d < 0) return err(std::string("tolerance.") + key, "expected a number >= 0");
    out = *d;
    return Status::Ok();
  };
  HONE_RETURN_IF_ERROR(get("atol", task.atol));
  HONE_RETURN_IF_ERROR(get("rtol", task.rtol));
  return get("precision", task.precision);
}

Status ParseCostAndVerify(const toml::table& root, Task& task, const FieldError& err) {
  if (const toml::node* n = root.get("cost")) {
    const toml::table* t = n->as_table();
    if (!t) return err("cost", "expected a table");
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
    const toml::table* t = n->as_table();
    if (!t) return err("verify", "expected a table");
    HONE_RETURN_IF_ERROR(CheckKnownKeys(*t, {"seeds"}, "verify", err));
    if (const toml::node* s = t->get("seeds")) {
      auto v = s->value<int64_t>();
      if (!v || *v < 3 || *v > 1000)
        return err("verify.seeds", "expected an integer from 3 to 1000");
      task.seeds = static_cast<int>(*v);
    }
  }
  return Status::Ok();
}

// [lint] allow = ["library"]: rules the task permits (a task about calling
// cuBLAS well, say). Unknown names are errors, not silently ignored.
Status ParseLint(const toml::table& root, Task& task, const FieldError& err) {
  const toml::node* n = root.get("lint");
  if (!n) return Status::Ok();
  const toml::table* t = n->as_table();
  if (!t) return err("lint", "expected a table");
  HONE_RETURN_IF_ERROR(CheckKnownKeys(*t, {"allow"}, "lint", err));
  const toml::node* a = t->get("allow");
  if (!a) return Status::Ok();
  const toml::array* list = a->as_array();
  if (!list) return err("lint.allow", "expected an array of rule names");
  for (size_t i = 0; i < list->size(); ++i) {
    auto name = (*list)[i].value<std::string>();
    std::string field = "lint.allow[" + std::to_string(i) + "]";
    if (!name) return err(field, "expected a string");
    if (!IsLintRule(*name)) return err(field, "unknown lint rule '" + *name + "'");
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

Result<Task> ParseTaskTable(const toml::table& root, const std::filesystem::path& dir,
                            const FieldError& err) {
  HONE_RETURN_IF_ERROR(
      CheckKnownKeys(root,
                     {"name", "category", "description", "reference", "cuda_reference", "inputs",
                      "outputs", "cases", "tolerance", "cost", "verify", "lint"},
                     "", err));
  Task task;
  task.dir = dir;
  HONE_ASSIGN_OR_RETURN(task.name, OptionalString(root, "name", dir.filename().string(), "", err));
  HONE_ASSIGN_OR_RETURN(task.category, OptionalString(root, "category", "other", "", err));
  HONE_ASSIGN_OR_RETURN(task.description, OptionalString(root, "description", "", "", err));
  std::string ref;
  HONE_ASSIGN_OR_RETURN(ref, OptionalString(root, "reference", "reference.cpp", "", err));
  task.reference = dir / ref;
  if (!std::filesystem::is_regular_file(task.reference))
    return err("reference", "file '" + task.reference.string() + "' not found");
  std::string cuda_ref;
  HONE_ASSIGN_OR_RETURN(cuda_ref, OptionalString(root, "cuda_reference", "", "", err));
  if (!cuda_ref.empty()) {
    task.cuda_reference = dir / cuda_ref;
    if (!std::filesystem::is_regular_file(task.cuda_reference))
      return err("cuda_reference", "file '" + task.cuda_reference.string() + "' not found");
  } else if (std::filesystem::is_regular_file(dir / "reference.cu")) {
    task.cuda_reference = dir / "reference.cu";
  }
  HONE_RETURN_IF_ERROR(ParseTensors(root, "inputs", true, task.inputs, err));
  HONE_RETURN_IF_ERROR(ParseTensors(root, "outputs", false, task.outputs, err));
  HONE_RETURN_IF_ERROR(ParseCases(root, task, err));
  HONE_RETURN_IF_ERROR(ParseTolerance(root, task, err));
  HONE_RETURN_IF_ERROR(ParseCostAndVerify(root, task, err));
  HONE_RETURN_IF_ERROR(ParseLint(root, task, err));
  HONE_RETURN_IF_ERROR(ValidateAgainstCases(task, err));
  size_t longest = 0;
  for (const auto& in : task.inputs) longest = std::max(longest, in.values.size());
  task.num_distributions = static_cast<int>(std::max<size_t>(2, longest));
  return task;
}

}  // namespace

bool IsNativeTaskDir(const std::filesystem::path& dir) {
  return std::filesystem::is_regular_file(dir / "task.toml");
}

Result<Task> LoadNativeTask(const std::filesystem::path& dir_in) {
  std::filesystem::path dir = dir_in.lexically_normal();
  if (!dir.empty() && dir.filename().empty()) dir = dir.parent_path();
  std::filesystem::path file = dir / "task.toml";
  auto text = ReadFile(file);
  if (!text.ok())
    return Status::Invalid(dir.string() + ": not a native task (no readable task.toml)");
  FieldError err(file.string());
  toml::table root;
  try {
    root = toml::parse(*text, file.string());
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return Status::Invalid(file.string() + ":" + std::to_string(where.line) + ":" +
                           std::to_string(where.column) + ": " + std::string(e.description()));
  }
  auto task = ParseTaskTable(root, dir, err);
  if (!task.ok()) return task.status();
  auto ref = ReadFile(task->reference);
  if (!ref.ok()) return Status::Invalid(err.file() + ": reference: " + ref.status().message());
  std::string cuda_ref;
  if (!task->cuda_reference.empty()) {
    auto r = ReadFile(task->cuda_reference);
    if (!r.ok()) return Status::Invalid(err.file() + ": cuda_reference: " + r.status().message());
    cuda_ref = *r;
  }
  task->hash = ContentHash({*text, *ref, cuda_ref});
  return task;
}

}  // namespace hone
