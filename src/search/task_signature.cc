#include "search/task_signature.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

namespace hone {
namespace {

using json = nlohmann::json;

constexpr double kCategoryWeight = 0.35;
constexpr double kIntensityWeight = 0.25;
constexpr double kDtypeWeight = 0.15;
constexpr double kSizeWeight = 0.15;
constexpr double kRankWeight = 0.10;
constexpr double kUnknown = 0.5;         // a term either side does not know
constexpr double kIntensityDecades = 2;  // log10 AI apart at which the term is 0
constexpr double kSizeDoublings = 10;    // log2 elements apart at which the term is 0

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

double Clamp01(double x) { return std::clamp(x, 0.0, 1.0); }

// The case a signature describes: the backend's first (timed) case, else
// the task's first.
const ShapeCase* FirstCase(const Task& task, const std::string& backend) {
  std::vector<const ShapeCase*> cases = task.CasesFor(backend);
  if (!cases.empty()) return cases.front();
  return task.cases.empty() ? nullptr : &task.cases.front();
}

std::optional<double> EvalCost(const std::optional<Expr>& e, const ShapeCase& c) {
  if (!e) return std::nullopt;
  auto v = e->Eval(c.symbols);
  if (!v.ok() || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return *v;
}

// Elements and bytes of every tensor at `c`; none when a shape does not
// evaluate there.
bool TensorTotals(const Task& task, const ShapeCase& c, double* elements, double* bytes) {
  *elements = *bytes = 0;
  for (const auto* list : {&task.inputs, &task.outputs})
    for (const TensorDecl& t : *list) {
      auto shape = ResolveShape(t, c);
      if (!shape.ok()) return false;
      double n = static_cast<double>(NumElements(*shape));
      *elements += n;
      *bytes += n * static_cast<double>(DtypeSize(t.dtype));
    }
  return true;
}

void AddCaseFeatures(const Task& task, const ShapeCase& c, TaskSignature& s) {
  double elements = 0, tensor_bytes = 0;
  const bool shapes_ok = TensorTotals(task, c, &elements, &tensor_bytes);
  if (shapes_ok && elements > 0) s.elements = elements;
  s.bytes = EvalCost(task.cost_bytes, c);
  if (!s.bytes && shapes_ok && tensor_bytes > 0) s.bytes = tensor_bytes;
  s.flops = EvalCost(task.cost_flops, c);
}

std::optional<double> OptNumber(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::vector<int> IntList(const json& j, const char* key) {
  std::vector<int> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& x : *it)
    if (x.is_number_integer()) out.push_back(x.get<int>());
  return out;
}

std::vector<std::string> TextList(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& x : *it)
    if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

// A category that says nothing about the operator: every PyTorch problem's
// ("pytorch"), a native task's default ("other").
bool Generic(const std::string& category) {
  return category.empty() || category == "pytorch" || category == "other" ||
         category == "uncategorised" || category == "uncategorized";
}

double CategoryTerm(const TaskSignature& a, const TaskSignature& b) {
  if (Generic(Lower(a.category)) || Generic(Lower(b.category))) return kUnknown;
  return Lower(a.category) == Lower(b.category) ? 1 : 0;
}

double IntensityTerm(const TaskSignature& a, const TaskSignature& b) {
  auto x = a.Intensity(), y = b.Intensity();
  if (!x || !y) return kUnknown;
  return Clamp01(1 - std::abs(std::log10(*x) - std::log10(*y)) / kIntensityDecades);
}

double DtypeTerm(const TaskSignature& a, const TaskSignature& b) {
  if (a.dtypes.empty() || b.dtypes.empty()) return kUnknown;
  std::set<std::string> x(a.dtypes.begin(), a.dtypes.end()), y(b.dtypes.begin(), b.dtypes.end());
  size_t both = 0;
  for (const auto& d : x) both += y.count(d);
  return static_cast<double>(both) / static_cast<double>(x.size() + y.size() - both);
}

double SizeTerm(const TaskSignature& a, const TaskSignature& b) {
  if (!a.elements || !b.elements || *a.elements <= 0 || *b.elements <= 0) return kUnknown;
  return Clamp01(1 - std::abs(std::log2(*a.elements) - std::log2(*b.elements)) / kSizeDoublings);
}

// Sum of the smaller counts over sum of the larger counts of each rank.
double MultisetOverlap(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.empty() && b.empty()) return 1;
  std::map<int, std::pair<int, int>> counts;
  for (int r : a) ++counts[r].first;
  for (int r : b) ++counts[r].second;
  int low = 0, high = 0;
  for (const auto& [rank, n] : counts) {
    low += std::min(n.first, n.second);
    high += std::max(n.first, n.second);
  }
  return static_cast<double>(low) / static_cast<double>(high);
}

double RankTerm(const TaskSignature& a, const TaskSignature& b) {
  const bool a_known = !a.input_ranks.empty() || !a.output_ranks.empty();
  const bool b_known = !b.input_ranks.empty() || !b.output_ranks.empty();
  if (!a_known || !b_known) return kUnknown;
  return 0.5 * MultisetOverlap(a.input_ranks, b.input_ranks) +
         0.5 * MultisetOverlap(a.output_ranks, b.output_ranks);
}

}  // namespace

std::optional<double> TaskSignature::Intensity() const {
  if (!bytes || !flops || *bytes <= 0 || *flops <= 0) return std::nullopt;
  return *flops / *bytes;
}

TaskSignature SignatureOf(const Task& task, const std::string& backend) {
  TaskSignature s;
  s.name = task.name;
  s.category = Lower(task.category);
  s.backend = backend;
  std::set<std::string> dtypes;
  for (const TensorDecl& t : task.inputs) {
    dtypes.insert(std::string(DtypeName(t.dtype)));
    s.input_ranks.push_back(static_cast<int>(t.shape.size()));
  }
  for (const TensorDecl& t : task.outputs) {
    dtypes.insert(std::string(DtypeName(t.dtype)));
    s.output_ranks.push_back(static_cast<int>(t.shape.size()));
  }
  s.dtypes.assign(dtypes.begin(), dtypes.end());
  if (task.cost_bytes) s.cost_bytes = task.cost_bytes->text();
  if (task.cost_flops) s.cost_flops = task.cost_flops->text();
  if (const ShapeCase* c = FirstCase(task, backend)) AddCaseFeatures(task, *c, s);
  return s;
}

json SignatureToJson(const TaskSignature& s) {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return {{"name", s.name},
          {"category", s.category},
          {"backend", s.backend},
          {"dtypes", s.dtypes},
          {"input_ranks", s.input_ranks},
          {"output_ranks", s.output_ranks},
          {"elements", opt(s.elements)},
          {"bytes", opt(s.bytes)},
          {"flops", opt(s.flops)},
          {"intensity", opt(s.Intensity())},
          {"cost_bytes", s.cost_bytes},
          {"cost_flops", s.cost_flops}};
}

TaskSignature SignatureFromJson(const json& j) {
  TaskSignature s;
  if (!j.is_object()) return s;
  auto text = [&](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  s.name = text("name");
  s.category = Lower(text("category"));
  s.backend = text("backend");
  s.dtypes = TextList(j, "dtypes");
  s.input_ranks = IntList(j, "input_ranks");
  s.output_ranks = IntList(j, "output_ranks");
  s.elements = OptNumber(j, "elements");
  s.bytes = OptNumber(j, "bytes");
  s.flops = OptNumber(j, "flops");
  s.cost_bytes = text("cost_bytes");
  s.cost_flops = text("cost_flops");
  return s;
}

double TaskSimilarity(const TaskSignature& a, const TaskSignature& b) {
  return kCategoryWeight * CategoryTerm(a, b) + kIntensityWeight * IntensityTerm(a, b) +
         kDtypeWeight * DtypeTerm(a, b) + kSizeWeight * SizeTerm(a, b) +
         kRankWeight * RankTerm(a, b);
}

}  // namespace hone
