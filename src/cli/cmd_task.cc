// hone task show TASK: what a candidate receives, case by case.
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/task_memory.h"
#include "core/json_text.h"
#include "format/builtin_formats.h"
#include "search/task_signature.h"
#include "task/reference_kind.h"
#include "task/suite.h"
#include "task/task_loader.h"
#include "task/task_text.h"

namespace hone::cli {
namespace {

struct TaskArgs {
  std::string task;
  EvalFlags flags;  // --shape-scale, --size-policy
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

nlohmann::json CasesJson(const Task& t) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : t.cases) {
    nlohmann::json cj = {{"case", c.label},
                         {"inputs", TensorsJson(t.inputs, c)},
                         {"outputs", TensorsJson(t.outputs, c)}};
    if (t.cost_bytes) cj["bytes"] = t.cost_bytes->Eval(c.symbols).value();
    if (t.cost_flops) cj["flops"] = t.cost_flops->Eval(c.symbols).value();
    cases.push_back(cj);
  }
  return cases;
}

bool IsPyTorchFolder(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec) || KindOfProblemPath(path)) return false;
  for (const auto& e : std::filesystem::directory_iterator(path, ec))
    if (LoadsThroughOracle(e.path())) return true;
  return false;
}

// A folder of PyTorch problems (a KernelBench level): one line per file,
// loaded, skipped or failed, with the reason; exit 0 whatever each is.
int RunFolderShow(const TaskArgs& a) {
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return ReportError(sizes.status());
  auto oracle = OracleService::Start(kHostBackend);
  if (!oracle.ok()) return ReportError(oracle.status());
  auto entries = (*oracle)->LoadFolder(a.task, *sizes);
  if (!entries.ok()) return ReportError(entries.status());
  nlohmann::json list = nlohmann::json::array();
  int loaded = 0, skipped = 0, failed = 0;
  for (const auto& e : *entries) {
    std::string status = e.task ? "loaded" : e.skipped ? "skipped" : "failed";
    (e.task ? loaded : e.skipped ? skipped : failed)++;
    nlohmann::json j = {{"file", e.file.string()}, {"status", status}};
    if (e.task) {
      j["inputs"] = e.task->inputs.size();
      j["outputs"] = e.task->outputs.size();
      j["shapes"] = KindOf(*e.task).text().SizesText(*e.task);
    } else {
      j["reason"] = e.reason;
    }
    list.push_back(j);
    if (!a.out.json)
      std::cout << fmt::format(
          "{:<40} {:<8} {}\n", e.file.filename().string(), status,
          e.task ? fmt::format("{} inputs, {} outputs; {}", e.task->inputs.size(),
                               e.task->outputs.size(), KindOf(*e.task).text().SizesText(*e.task))
                 : e.reason);
  }
  if (a.out.json) {
    std::cout << JsonText(nlohmann::json{{"folder", a.task},
                                         {"problems", list},
                                         {"loaded", loaded},
                                         {"skipped", skipped},
                                         {"failed", failed}},
                          2)
              << "\n";
  } else {
    std::cout << fmt::format("{} loaded, {} skipped, {} failed\n", loaded, skipped, failed);
  }
  return kExitOk;
}

nlohmann::json TaskJson(const Task& t) {
  nlohmann::json j = {{"name", t.name},
                      {"category", t.category},
                      {"description", t.description},
                      {"reference", t.reference.string()},
                      {"seeds", t.seeds},
                      {"distributions", t.num_distributions},
                      {"hash", t.hash},
                      {"cases", CasesJson(t)},
                      // What the MCP server's task_show gives an agent: the
                      // text a prompt shows, and the cost formulas.
                      {"contract", ContractArgumentsText(t)},
                      {"tolerance", ToleranceText(t)},
                      {"signature", SignatureToJson(SignatureOf(t, kHostBackend))}};
  KindOf(t).text().AddJson(t, j);
  return j;
}

std::string TaskText(const Task& t) {
  return fmt::format("{} ({})\n  {}\n", t.name, t.category, t.description) +
         ContractArgumentsText(t) + ToleranceText(t);
}

// A folder of native task folders (or of level folders of them): every
// task shown in turn. One that does not load is said on stderr, the others
// are still shown, and the exit code is 2.
int RunSuiteShow(const TaskArgs& a, const SizePolicy& sizes) {
  auto entries = DiscoverSuiteOf(BuiltInFormats(), a.task, SuiteLayout{});
  if (!entries.ok()) return ReportError(entries.status());
  std::unique_ptr<OracleService> oracle;
  nlohmann::json tasks = nlohmann::json::array(), failed = nlohmann::json::array();
  int shown = 0;
  for (const auto& e : *entries) {
    auto task = LoadTaskWith(oracle, e.task.string(), kHostBackend, sizes);
    if (!task.ok()) {
      std::fprintf(stderr, "hone: %s\n", task.status().message().c_str());
      failed.push_back({{"path", e.task.string()}, {"reason", task.status().message()}});
      continue;
    }
    if (!a.out.json) std::cout << (shown ? "\n" : "") << TaskText(*task);
    if (a.out.json) tasks.push_back(TaskJson(*task));
    ++shown;
  }
  if (a.out.json)
    std::cout << JsonText(nlohmann::json{{"folder", a.task}, {"tasks", tasks}, {"failed", failed}},
                          2)
              << "\n";
  return failed.empty() ? kExitOk : kExitUsage;
}

int RunTaskShow(const TaskArgs& a) {
  // A folder that a format reads as one problem (a native task, a
  // robust-kbench task with its func_forward.py) is shown as that problem.
  auto format = BuiltInFormats().ForProblem(a.task);
  if (!format.ok() && IsPyTorchFolder(a.task)) return RunFolderShow(a);
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return ReportError(sizes.status());
  std::error_code ec;
  if (!format.ok() && std::filesystem::is_directory(a.task, ec)) return RunSuiteShow(a, *sizes);
  if (!format.ok()) return ReportError(format.status());
  auto parts = (*format)->Parts(a.task, PartOptions{});
  if (!parts.ok()) return ReportError(parts.status());
  std::unique_ptr<OracleService> oracle;
  nlohmann::json shown = nlohmann::json::array();
  for (size_t i = 0; i < parts->size(); ++i) {
    const ProblemPart& part = (*parts)[i];
    auto task = LoadTaskWith(oracle, part.load.string(), kHostBackend, *sizes);
    if (!task.ok()) return ReportError(task.status());
    nlohmann::json j = TaskJson(*task);
    if (!part.label.empty()) j["part"] = {{"label", part.label}, {"id", part.id}};
    shown.push_back(std::move(j));
    if (!a.out.json)
      std::cout << (i ? "\n" : "") << (part.label.empty() ? "" : "== " + part.label + "\n")
                << TaskText(*task);
  }
  if (a.out.json) std::cout << JsonText((shown.size() == 1 ? shown[0] : shown), 2) << "\n";
  return kExitOk;
}

}  // namespace

Command RegisterTask(CLI::App& app) {
  auto args = std::make_shared<TaskArgs>();
  CLI::App* task = app.add_subcommand("task", "Inspect tasks");
  task->require_subcommand(1);
  CLI::App* show = task->add_subcommand("show", "Print a task's inputs, outputs and cases");
  show->add_option("task", args->task,
                   "Native task folder (or its task.toml), PyTorch problem file (.py), "
                   "FlashInfer-Trace definition (.json, each workload shown), or a folder of "
                   "problems (each is shown)")
      ->required();
  show->add_option("--shape-scale", args->flags.shape_scale,
                   "PyTorch tasks: multiply module-level integer sizes by this factor in (0, 1]");
  show->add_option("--size-policy", args->flags.size_policy,
                   "PyTorch tasks: pick the scale by memory budget: full, cpu24g, small, tiny");
  AddOutputFlags(show, args->out);

  auto mem = std::make_shared<TaskMemoryArgs>();
  CLI::App* memory = task->add_subcommand(
      "memory",
      "What PyTorch problems need of a GPU's memory under hone and under KernelBench's "
      "evaluator, per card size (estimated without running them: no GPU needed)");
  memory->add_option("problems", mem->paths, "PyTorch problem files (.py) or folders of them")
      ->required();
  memory
      ->add_option("--card", mem->cards_gb,
                   "A card size in GB to show, repeated or comma-separated (default 24,40,48,80)")
      ->expected(1)
      ->allow_extra_args(false)
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  memory->add_option("--shape-scale", mem->flags.shape_scale,
                     "Multiply module-level integer sizes by this factor in (0, 1]");
  memory->add_option("--size-policy", mem->flags.size_policy,
                     "Pick the scale by memory budget: full, cpu24g, small, tiny");
  AddOutputFlags(memory, mem->out);
  return [args, mem, memory] {
    if (memory->parsed()) return RunTaskMemory(*mem);
    return RunTaskShow(*args);
  };
}

}  // namespace hone::cli
