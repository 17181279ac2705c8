// hone lint FILE...: the static rules a candidate is checked against before
// it is built, without building or running anything. Exit 0 when every file
// is clean, 1 when a rule is broken, 2 for bad usage.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/eval_flags.h"
#include "core/fs.h"
#include "task/task.h"
#include "verify/lint.h"

namespace hone::cli {
namespace {

struct LintArgs {
  std::vector<std::string> files;
  std::vector<std::string> allow;
  bool rules = false;
  Output out;
};

int PrintRules(const Output& out) {
  if (out.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : LintRules()) j.push_back({{"rule", r.name}, {"why", r.explanation}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& r : LintRules()) std::cout << fmt::format("{:<18} {}\n", r.name, r.explanation);
  return kExitOk;
}

nlohmann::json FindingJson(const LintFinding& f) {
  return {{"rule", f.rule}, {"line", f.line}, {"token", f.token}, {"why", f.explanation}};
}

int RunLint(const LintArgs& a) {
  if (a.rules) return PrintRules(a.out);
  if (a.files.empty()) return ReportError(Status::Invalid("lint: name at least one source file"));
  LintOptions lo;
  auto allowed = ParseAllowedRules(a.allow);
  if (!allowed.ok()) return ReportError(allowed.status());
  lo.allowed = std::move(*allowed);
  nlohmann::json report = nlohmann::json::array();
  size_t broken = 0;
  for (const auto& file : a.files) {
    // What eval would refuse (an unknown extension, a folder) is bad usage here too.
    if (Status st = CheckCandidateFile(file); !st.ok()) return ReportError(st);
    auto source = ReadFile(file);
    // A file that cannot be read is bad usage, like a malformed task.
    if (!source.ok()) return ReportError(Status::Invalid(source.status().message()));
    lo.cuda = CandidateKind(file) == "cuda";
    std::vector<LintFinding> findings = LintSource(*source, lo);
    broken += findings.size();
    nlohmann::json list = nlohmann::json::array();
    for (const auto& f : findings) {
      list.push_back(FindingJson(f));
      if (!a.out.json) std::cout << fmt::format("{}:{}: {}\n", file, f.line, DescribeFinding(f));
    }
    report.push_back({{"file", file}, {"findings", list}});
  }
  if (a.out.json) {
    std::cout << report.dump(2) << "\n";
  } else if (!a.out.quiet) {
    std::cerr << fmt::format("{} file(s), {} finding(s)\n", a.files.size(), broken);
  }
  return broken ? kExitFailure : kExitOk;
}

}  // namespace

Command RegisterLint(CLI::App& app) {
  auto args = std::make_shared<LintArgs>();
  CLI::App* lint = app.add_subcommand(
      "lint", "Check candidate sources against the static rules, without building them");
  lint->add_option("files", args->files, "Candidate sources (.cpp, .cu)");
  AddAllowFlag(lint, args->allow, "Allow a rule (repeatable)");
  lint->add_flag("--rules", args->rules, "List the rules and why each exists");
  AddOutputFlags(lint, args->out);
  return [args] { return RunLint(*args); };
}

}  // namespace hone::cli
