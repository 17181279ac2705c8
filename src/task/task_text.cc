#include "task/task_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "task/reference_kind.h"

namespace hone {
namespace {

// "[128,1024]" ("[]" for a scalar), or the reason the shape does not resolve.
std::string ShapeText(const TensorDecl& decl, const ShapeCase& c) {
  auto shape = ResolveShape(decl, c);
  if (!shape.ok()) return "(" + shape.status().message() + ")";
  return fmt::format("[{}]", fmt::join(*shape, ","));
}

// `origins`: the task whose reference kind says where each input comes
// from (inputs only).
std::string TensorLines(const char* kind, const std::vector<TensorDecl>& decls, const ShapeCase& c,
                        const Task* origins = nullptr) {
  std::string out;
  for (size_t i = 0; i < decls.size(); ++i)
    out += fmt::format("    {}[{}] {:<12} {:<5} {}{}\n", kind, i, decls[i].name,
                       DtypeName(decls[i].dtype), ShapeText(decls[i], c),
                       origins ? KindOf(*origins).text().InputOrigin(*origins, i) : "");
  return out;
}

// Whole numbers in full ("33554432", not "3.36e+07"); others as %g.
std::string NumberText(double v) {
  if (std::nearbyint(v) == v && std::fabs(v) < 1e18)
    return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:g}", v);
}

// "B=128 N=1024", without the backend annotation the case label carries.
std::string SymbolsText(const ShapeCase& c) {
  std::string out;
  for (const auto& [name, value] : c.symbols)
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, NumberText(value));
  return out.empty() ? "scalar" : out;
}

// ", 4194304 bytes, 4718592 flops" for the costs the task declares.
std::string CostText(const Task& task, const ShapeCase& c) {
  std::string out;
  auto add = [&](const std::optional<Expr>& e, const char* unit) {
    if (!e) return;
    auto v = e->Eval(c.symbols);
    if (v.ok()) out += fmt::format(", {} {} ({})", NumberText(*v), unit, e->text());
  };
  add(task.cost_bytes, "bytes");
  add(task.cost_flops, "flops");
  return out;
}

}  // namespace

std::string ContractArgumentsText(const Task& task, const std::string& receiver) {
  std::string out = "  " + receiver + " receives, in order:\n";
  out += KindOf(task).text().ArgumentsPreamble(task);
  for (const auto& c : task.cases) {
    out += fmt::format("  case {}:\n", c.label);
    out += TensorLines("inputs", task.inputs, c, &task);
    out += TensorLines("outputs", task.outputs, c);
  }
  return out;
}

std::string CasesText(const Task& task, const std::string& backend) {
  std::vector<const ShapeCase*> cases = task.CasesFor(backend);
  if (cases.empty()) return "  (none)\n";
  std::string out;
  for (size_t i = 0; i < cases.size(); ++i)
    out += fmt::format("  {}{}{}\n", SymbolsText(*cases[i]), CostText(task, *cases[i]),
                       i == 0 ? "  <- timed" : "");
  return out;
}

std::string ToleranceText(const Task& task) {
  std::string out;
  for (const auto& o : task.outputs) {
    Tolerance tol = task.ToleranceFor(o.dtype);
    out += fmt::format("  tolerance for '{}': atol {:g}, rtol {:g}, precision {:g}\n", o.name,
                       tol.atol, tol.rtol, tol.precision);
  }
  out += fmt::format("  verified with {} seeds x {} value distributions per case\n", task.seeds,
                     task.num_distributions);
  return out;
}

}  // namespace hone
