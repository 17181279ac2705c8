#include "cli/task_memory.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/backend_names.h"
#include "core/json_text.h"
#include "core/wording.h"
#include "pytorch/memory_need.h"
#include "task/oracle_service.h"
#include "task/reference_kind.h"

namespace hone::cli {
namespace {

using LoadMode = OracleService::LoadMode;

struct Row {
  std::string file;
  std::optional<MemoryNeed> need;
  std::string why;  // not estimated: why
};

Result<std::vector<Row>> Estimate(OracleService& oracle, const std::string& path,
                                  const SizePolicy& sizes, const std::vector<double>& cards) {
  std::error_code ec;
  std::vector<Row> rows;
  std::vector<FolderEntry> entries;
  if (std::filesystem::is_directory(path, ec)) {
    HONE_ASSIGN_OR_RETURN(entries, oracle.LoadFolder(path, sizes, LoadMode::kEstimate));
    if (entries.empty())
      return Status::Invalid(path + ": no PyTorch problem files (.py) in this folder");
  } else if (std::filesystem::is_regular_file(path, ec) && LoadsThroughOracle(path)) {
    entries.push_back(oracle.LoadEntry(path, sizes, LoadMode::kEstimate));
  } else {
    return Status::Invalid(path + ": not a PyTorch problem file (.py) or a folder of them");
  }
  for (FolderEntry& e : entries) {
    Row r;
    r.file = e.file.string();
    r.why = e.reason;
    if (e.task) {
      auto need = MemoryNeedOf(*e.task, cards);
      if (need.ok())
        r.need = std::move(*need);
      else
        r.why = need.status().message();
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// Which evaluators fit a card: "both", "KB only" (hone's plan does not), "hone only", "neither".
std::string FitWord(const CardFit& c) {
  if (c.plan.fits && c.kernelbench) return "both";
  if (c.kernelbench) return "KB only";
  if (c.plan.fits) return "hone only";
  return "neither";
}

nlohmann::json RowJson(const Row& r) {
  nlohmann::json j = {{"file", r.file}};
  if (!r.need) {
    j["error"] = r.why;
    return j;
  }
  const MemoryNeed& n = *r.need;
  j["inputs_bytes"] = n.demand.forward_arguments;
  j["outputs_bytes"] = n.demand.outputs;
  j["model_bytes"] = n.demand.model;
  j["forward_peak_bytes"] = n.demand.forward_peak;
  j["kernelbench_bytes"] = n.kernelbench;
  j["hone_full_bytes"] = n.hone_full;
  j["hone_least_bytes"] = n.hone_least;
  j["hone_least_parts"] = n.hone_least_parts;
  j["ratio"] = n.Ratio();
  nlohmann::json cards = nlohmann::json::array();
  for (const CardFit& c : n.cards)
    cards.push_back({{"card_gb", c.card_gb},
                     {"kernelbench", c.kernelbench},
                     {"hone", c.plan.fits},
                     {"hone_peak_bytes", c.plan.peak},
                     {"input_sets", c.plan.input_sets},
                     {"pool_sets", c.plan.pool_sets},
                     {"float64", c.plan.ref64},
                     {"shrunk", c.plan.shrunk}});
  j["cards"] = cards;
  return j;
}

void PrintRows(const std::vector<Row>& rows, const std::vector<double>& cards) {
  std::string head = fmt::format("{:<44} {:>9} {:>9} {:>11} {:>10} {:>6}", "problem", "inputs",
                                 "outputs", "KernelBench", "hone least", "ratio");
  for (double gb : cards) head += fmt::format(" {:>9}", Num(gb) + " GB");
  std::cout << head << "\n";
  for (const Row& r : rows) {
    const std::string name = std::filesystem::path(r.file).filename().string();
    if (!r.need) {
      std::cout << fmt::format("{:<44} not estimated: {}\n", name, r.why);
      continue;
    }
    const MemoryNeed& n = *r.need;
    std::string line = fmt::format(
        "{:<44} {:>9} {:>9} {:>11} {:>10} {:>5.2f}x", name, Gigabytes(n.demand.forward_arguments),
        Gigabytes(n.demand.outputs), Gigabytes(n.kernelbench), Gigabytes(n.hone_least), n.Ratio());
    for (const CardFit& c : n.cards) line += fmt::format(" {:>9}", FitWord(c));
    std::cout << line << "\n";
  }
}

// Per card size: how many problems each evaluator fits, and those only
// KernelBench's does (hone's gap).
nlohmann::json Summary(const std::vector<Row>& rows, const std::vector<double>& cards) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < cards.size(); ++i) {
    int kb = 0, hone = 0;
    nlohmann::json kb_only = nlohmann::json::array();
    for (const Row& r : rows) {
      if (!r.need) continue;
      const CardFit& c = r.need->cards[i];
      kb += c.kernelbench;
      hone += c.plan.fits;
      if (c.kernelbench && !c.plan.fits)
        kb_only.push_back(std::filesystem::path(r.file).filename().string());
    }
    out.push_back({{"card_gb", cards[i]},
                   {"kernelbench_fits", kb},
                   {"hone_fits", hone},
                   {"kernelbench_only", kb_only}});
  }
  return out;
}

}  // namespace

int RunTaskMemory(const TaskMemoryArgs& a) {
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return ReportError(sizes.status());
  const std::vector<double> cards = a.cards_gb.empty() ? kCardSizesGb : a.cards_gb;
  for (double gb : cards)
    if (!(gb > 0 && gb < 1e6))
      return ReportError(Status::Invalid("--card: a card size in GB above 0, got " + Num(gb)));
  auto oracle = OracleService::Start(kHostBackend);
  if (!oracle.ok()) return ReportError(oracle.status());
  std::vector<Row> rows;
  for (const std::string& path : a.paths) {
    auto more = Estimate(**oracle, path, *sizes, cards);
    if (!more.ok()) return ReportError(more.status());
    rows.insert(rows.end(), more->begin(), more->end());
  }
  (*oracle)->Abandon();
  if (a.out.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Row& r : rows) list.push_back(RowJson(r));
    std::cout << JsonText(nlohmann::json{{"sizes", sizes->text()},
                                         {"problems", list},
                                         {"cards", Summary(rows, cards)}},
                          2)
              << "\n";
    return kExitOk;
  }
  PrintRows(rows, cards);
  for (const auto& c : Summary(rows, cards)) {
    std::string line = fmt::format("{} GB: KernelBench's evaluator fits {}, hone {}",
                                   Num(c["card_gb"].get<double>()),
                                   c["kernelbench_fits"].get<int>(), c["hone_fits"].get<int>());
    if (!c["kernelbench_only"].empty()) {
      line += "; KernelBench's only:";
      for (const auto& f : c["kernelbench_only"]) line += " " + f.get<std::string>();
    }
    std::cout << line << "\n";
  }
  return kExitOk;
}

}  // namespace hone::cli
