// hone lint FILE...: the static rules a candidate is checked against before
// it is built (its language's, lang/language.h), without building or
// running anything. Exit 0 when no finding rejects (warnings are printed),
// 1 when one does, 2 for bad usage.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/eval_flags.h"
#include "compat/compat_scan.h"
#include "core/fs.h"
#include "core/json_text.h"
#include "core/paths.h"
#include "lang/builtin.h"
#include "verify/lint.h"

namespace hone::cli {
namespace {

struct LintArgs {
  std::vector<std::string> files;
  std::vector<std::string> allow;
  bool rules = false;
  Output out;
};

const char* SeverityName(const LanguageRule& r) {
  return r.severity == LanguageRule::Severity::kWarn ? "warning" : "reject";
}

// Every language's rules, each rule once per meaning, with the languages
// that have it in that meaning ('timing' means one thing in C++ and
// another in a Python file).
int PrintRules(const Output& out) {
  struct Row {
    const LanguageRule* rule;
    std::vector<std::string> languages;
  };
  std::vector<Row> rows;
  for (const Language& l : BuiltInLanguages().all())
    for (const LanguageRule& r : l.lint.rules) {
      auto same = [&](const Row& row) {
        return row.rule->name == r.name && row.rule->explanation == r.explanation &&
               row.rule->severity == r.severity;
      };
      auto it = std::find_if(rows.begin(), rows.end(), same);
      if (it == rows.end()) it = rows.insert(rows.end(), Row{&r, {}});
      it->languages.push_back(l.name);
    }
  nlohmann::json j = nlohmann::json::array();
  for (const Row& row : rows) {
    j.push_back({{"rule", row.rule->name},
                 {"why", row.rule->explanation},
                 {"severity", SeverityName(*row.rule)},
                 {"languages", row.languages}});
    if (!out.json)
      std::cout << fmt::format("{:<18} [{}; {}] {}\n", row.rule->name,
                               fmt::join(row.languages, ", "), SeverityName(*row.rule),
                               row.rule->explanation);
  }
  if (out.json) std::cout << JsonText(j, 2) << "\n";
  return kExitOk;
}

nlohmann::json FindingJson(const LintFinding& f, bool warning) {
  return {{"rule", f.rule},
          {"line", f.line},
          {"token", f.token},
          {"why", f.explanation},
          {"severity", warning ? "warning" : "reject"}};
}

// A language's findings on one file: its check over the text (native), or
// the scan of a ModelNew file with Python's own parser.
Result<std::vector<LintFinding>> FindingsOf(const Language& language, const std::string& file,
                                            const std::string& source,
                                            const LanguageRegistry& languages) {
  if (!language.run.modelnew())
    return language.lint.check ? language.lint.check(source) : std::vector<LintFinding>{};
  HONE_ASSIGN_OR_RETURN(std::filesystem::path python_dir, FindPythonDir());
  HONE_ASSIGN_OR_RETURN(CompatScan scan,
                        ScanCompatFile(file, python_dir, "", languages.KernelDecorators()));
  if (!scan.ok) return Status::Invalid(scan.error);
  return scan.AllFindings();
}

int RunLint(const LintArgs& a) {
  if (a.rules) return PrintRules(a.out);
  const LanguageRegistry& languages = BuiltInLanguages();
  if (a.files.empty()) return ReportError(Status::Invalid("lint: name at least one source file"));
  auto allowed = ParseAllowedRules(a.allow, languages);
  if (!allowed.ok()) return ReportError(allowed.status());
  nlohmann::json report = nlohmann::json::array();
  size_t broken = 0, warned = 0;
  for (const auto& file : a.files) {
    // What eval would refuse (an unknown extension, a folder) is bad usage here too.
    if (Status st = CheckCandidateFile(file, languages); !st.ok()) return ReportError(st);
    auto source = ReadFile(file);
    // A file that cannot be read is bad usage, like a malformed task.
    if (!source.ok()) return ReportError(Status::Invalid(source.status().message()));
    const Language& language = *languages.ForFile(file).value();
    auto findings = FindingsOf(language, file, *source, languages);
    if (!findings.ok()) return ReportError(findings.status());
    nlohmann::json list = nlohmann::json::array();
    for (const auto& f : *findings) {
      LintOutcome one = JudgeFindings(language, {f}, *allowed);
      if (!one.rejection && one.warnings.empty()) continue;  // allowed
      const bool warning = !one.rejection;
      (warning ? warned : broken) += 1;
      list.push_back(FindingJson(f, warning));
      if (!a.out.json)
        std::cout << fmt::format("{}:{}: {}{}\n", file, f.line, warning ? "warning: " : "",
                                 DescribeFinding(f));
    }
    report.push_back({{"file", file}, {"language", language.name}, {"findings", list}});
  }
  if (a.out.json) {
    std::cout << JsonText(report, 2) << "\n";
  } else if (!a.out.quiet) {
    std::cerr << fmt::format("{} file(s), {} finding(s), {} warning(s)\n", a.files.size(), broken,
                             warned);
  }
  return broken ? kExitFailure : kExitOk;
}

}  // namespace

Command RegisterLint(CLI::App& app) {
  auto args = std::make_shared<LintArgs>();
  CLI::App* lint = app.add_subcommand(
      "lint", "Check candidate sources against the static rules, without building them");
  lint->add_option("files", args->files, "Candidate sources (.cpp, .cu, a ModelNew .py)");
  AddAllowFlag(lint, args->allow, "Allow a rule (repeatable)");
  lint->add_flag("--rules", args->rules, "List the rules and why each exists");
  AddOutputFlags(lint, args->out);
  return [args] { return RunLint(*args); };
}

}  // namespace hone::cli
