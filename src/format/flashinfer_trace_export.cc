#include "format/flashinfer_trace_export.h"

#include <nlohmann/json.hpp>
#include <regex>

#include "core/json_text.h"
#include "format/flashinfer_codegen.h"
#include "format/flashinfer_format.h"
#include "verify/verdict_json.h"

namespace hone {
namespace {

using ojson = nlohmann::ordered_json;

// The definition and workload a generated problem file holds (its HONE_FI
// line, flashinfer_codegen.cc), or nullopt for any other task.
std::optional<ojson> ProblemData(const std::string& text) {
  static const std::regex line(R"(\nHONE_FI = _hone_fi_json\.loads\((".*")\)\n)");
  std::smatch m;
  if (text.find(flashinfer::kHelpersMarker) == std::string::npos ||
      !std::regex_search(text, m, line))
    return std::nullopt;
  ojson literal = ojson::parse(m[1].str(), nullptr, false);
  if (!literal.is_string()) return std::nullopt;
  ojson fi = ojson::parse(literal.get<std::string>(), nullptr, false);
  if (!fi.is_object() || !fi.contains("definition") || !fi.contains("workload"))
    return std::nullopt;
  return fi;
}

std::string SolutionName(const AttemptView& a, const RunData& run) {
  static const std::regex named(R"(FlashInfer-Trace solution '([^']+)')");
  std::smatch m;
  if (a.candidate.source && std::regex_search(*a.candidate.source, m, named)) return m[1].str();
  if (!a.candidate.label.empty()) return a.candidate.label;
  return "hone-run" + std::to_string(run.run.id) + "-" + std::to_string(a.candidate.seq);
}

ojson Evaluation(const Verdict& v, const std::string& status, const std::string& finished) {
  ojson e = {{"status", status},
             {"log", v.reason},
             {"environment",
              {{"hardware", v.machine.cpu_model.empty() ? v.machine.device : v.machine.cpu_model},
               {"libs", {{"hone", HONE_VERSION}}}}},
             {"timestamp", finished}};
  if (status == "PASSED" || status == "INCORRECT_NUMERICAL")
    e["correctness"] = {{"max_relative_error", v.precision.max_rel_error},
                        {"max_absolute_error", v.precision.max_abs_error}};
  if (status == "PASSED") {
    // Not timed (--no-time): unknown, null, never a latency of 0.
    auto ms = [](const std::optional<TimingResult>& t) {
      return t && t->summary.median > 0 ? ojson(t->summary.median * 1e3) : ojson(nullptr);
    };
    const ojson latency = ms(v.timing.candidate_time), reference = ms(v.timing.reference_time);
    e["performance"] = {
        {"latency_ms", latency},
        {"reference_latency_ms", reference},
        {"speedup_factor", latency.is_null() || reference.is_null()
                               ? ojson(nullptr)
                               : ojson(reference.get<double>() / latency.get<double>())}};
  }
  return e;
}

}  // namespace

TraceExportCount WriteFlashInferTraces(
    const RunData& run, const ExportOptions& options,
    const std::function<std::optional<std::string>(const std::string&)>& task_text,
    std::ostream& out) {
  auto format = FlashInferTraceFormat();
  TraceExportCount count;
  for (const auto& [a, is_best] : KeptAttempts(run, options)) {
    (void)is_best;
    auto text = task_text(a->candidate.task_hash);
    std::optional<ojson> fi = text ? ProblemData(*text) : std::nullopt;
    if (!fi || !a->evaluation || a->evaluation->verdict.empty()) {
      ++count.skipped;
      continue;
    }
    auto verdict = VerdictFromJson(nlohmann::json::parse(a->evaluation->verdict, nullptr, false));
    // A busy GPU decided nothing: the format has no status for that, and a
    // trace would score it.
    if (!verdict.ok() || !Decides(verdict->status)) {
      ++count.skipped;
      continue;
    }
    ojson line = {
        {"definition", (*fi)["definition"].value("name", "")},
        {"workload", (*fi)["workload"]},
        {"solution", SolutionName(*a, run)},
        {"evaluation", Evaluation(*verdict, format->StatusOf(*verdict), a->evaluation->finished)}};
    out << JsonText(line) << "\n";
    ++count.written;
  }
  return count;
}

}  // namespace hone
