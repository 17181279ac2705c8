// hone task show TASK: what a candidate receives, case by case.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "task/task_loader.h"

namespace hone::cli {
namespace {

struct TaskArgs {
  std::string task;
  Output out;
};

nlohmann::json TensorsJson(const std::vector<TensorDecl>& decls, const ShapeCase& c) {
  nlohmann::json arr = nlohmann::json::array();
  for (size_t i = 0; i < decls.size(); ++i) {
    auto shape = ResolveShape(decls[i], c);
    nlohmann::json t = {{"index", i},
                        {"name", decls[i].name},
                        {"dtype", std::string(DtypeName(decls[i].dtype))},
                        {"shape", shape.ok() ? nlohmann::json(*shape) : nlohmann::json(nullptr)}};
    std::vector<std::string> values;
    for (const auto& d : decls[i].values) values.push_back(d.text());
    if (!values.empty()) t["values"] = values;
    arr.push_back(t);
  }
  return arr;
}

int RunTaskShow(const TaskArgs& a) {
  auto task = LoadNativeTask(a.task);
  if (!task.ok()) return ReportError(task.status());
  const Task& t = *task;
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : t.cases) {
    nlohmann::json cj = {{"case", c.label},
                         {"inputs", TensorsJson(t.inputs, c)},
                         {"outputs", TensorsJson(t.outputs, c)}};
    if (t.cost_bytes) cj["bytes"] = t.cost_bytes->Eval(c.symbols).value();
    if (t.cost_flops) cj["flops"] = t.cost_flops->Eval(c.symbols).value();
    cases.push_back(cj);
  }
  if (a.out.json) {
    nlohmann::json j = {{"name", t.name},
                        {"category", t.category},
                        {"description", t.description},
                        {"reference", t.reference.string()},
                        {"seeds", t.seeds},
                        {"distributions", t.num_distributions},
                        {"hash", t.hash},
                        {"cases", cases}};
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("{} ({})\n  {}\n", t.name, t.category, t.description);
  std::cout << "  hone_forward receives, in order:\n";
  for (const auto& c : cases) {
    std::cout << fmt::format("  case {}:\n", c["case"].get<std::string>());
    for (const char* kind : {"inputs", "outputs"})
      for (const auto& tj : c[kind]) {
        std::string shape = tj["shape"].dump();
        std::cout << fmt::format("    {}[{}] {:<12} {:<5} {}\n", kind, tj["index"].get<int>(),
                                 tj["name"].get<std::string>(), tj["dtype"].get<std::string>(),
                                 shape);
      }
  }
  for (const auto& o : t.outputs) {
    Tolerance tol = t.ToleranceFor(o.dtype);
    std::cout << fmt::format("  tolerance for '{}': atol {:g}, rtol {:g}, precision {:g}\n", o.name,
                             tol.atol, tol.rtol, tol.precision);
  }
  std::cout << fmt::format("  verified with {} seeds x {} value distributions per case\n", t.seeds,
                           t.num_distributions);
  return kExitOk;
}

}  // namespace

Command RegisterTask(CLI::App& app) {
  auto args = std::make_shared<TaskArgs>();
  CLI::App* task = app.add_subcommand("task", "Inspect tasks");
  task->require_subcommand(1);
  CLI::App* show = task->add_subcommand("show", "Print a task's inputs, outputs and cases");
  show->add_option("task", args->task, "Native task folder")->required();
  AddOutputFlags(show, args->out);
  return [args] { return RunTaskShow(*args); };
}

}  // namespace hone::cli
