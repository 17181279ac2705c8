#include "report/html_report.h"

#include <fmt/format.h>

#include <cstdlib>

#include "core/fs.h"
#include "report/arm_summary.h"
#include "report/bench_metrics.h"
#include "report/html_report_charts.h"
#include "report/html_report_tables.h"

namespace hone {
namespace {

using json = nlohmann::json;

const char kStyle[] = R"css(
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1300px;
       padding: 0 16px 48px; color: #1d2329; background: #fff; }
h1 { font-size: 22px; margin: 20px 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
.meta { color: #57606a; }
.banner { padding: 8px 12px; border-radius: 6px; margin: 10px 0; }
.running { background: #fff8c5; border: 1px solid #d4a72c; }
.errors { background: #ffebe9; border: 1px solid #cf222e; display: none; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e6e9ed; text-align: left;
         vertical-align: top; }
th { background: #f6f8fa; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 18px; }
.plot { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 10px 12px; }
.plot h3 { margin: 0 0 6px; }
.plot .box { position: relative; height: 320px; }
.plot p { margin: 6px 0 0; color: #57606a; font-size: 12px; }
pre { background: #f6f8fa; padding: 10px; overflow-x: auto; font-size: 12px; line-height: 1.35;
      border-radius: 6px; white-space: pre; }
details > summary { cursor: pointer; }
.passed { color: #1a7f37; font-weight: 600; }
.failed { color: #cf222e; font-weight: 600; }
.other { color: #9a6700; font-weight: 600; }
ul.tree, ul.tree ul { padding-left: 22px; margin: 2px 0; }
ul.tree li { margin: 2px 0; }
)css";

// Catches every script error, before anything else runs: shown in a banner
// and written to <html data-script-errors> for tests.
const char kErrorCatcher[] = R"js(
window.honeErrors = [];
window.addEventListener('error', function (e) {
  var text = (e && e.message) ? e.message : String(e);
  window.honeErrors.push(text);
  document.documentElement.setAttribute('data-script-errors', window.honeErrors.join(' | '));
  var box = document.getElementById('script-errors');
  if (box) { box.style.display = 'block'; box.textContent = 'Script error: ' + window.honeErrors.join(' | '); }
});
)js";

std::string HeaderHtml(const RunData& run, const RunSummary& s, const std::string& generated) {
  const RunRow& r = run.run;
  std::string title = fmt::format("hone run {}{}", r.id, r.name.empty() ? "" : ": " + r.name);
  std::string out = fmt::format("<h1>{}</h1>\n<div class=\"meta\">", HtmlEscape(title));
  out += fmt::format(
      "kind <b>{}</b> &middot; status <b>{}</b> &middot; created {} &middot; "
      "updated {} &middot; hone {}",
      HtmlEscape(r.kind), HtmlEscape(r.status), HtmlEscape(r.created), HtmlEscape(r.updated),
      HtmlEscape(r.hone_version));
  if (!s.machine.empty()) out += " &middot; machine " + HtmlEscape(s.machine);
  if (!s.model.empty()) out += " &middot; model <b>" + HtmlEscape(s.model) + "</b>";
  if (!generated.empty()) out += " &middot; report made " + HtmlEscape(generated);
  out += "</div>\n";
  if (r.status == "running")
    out +=
        "<div class=\"banner running\">This run is still in progress: the report shows what "
        "was stored when it was made.</div>\n";
  return out + "<div id=\"script-errors\" class=\"banner errors\"></div>\n";
}

std::string BodyHtml(const RunData& run, const RunSummary& s, const json& data,
                     const std::string& generated) {
  std::string out = HeaderHtml(run, s, generated);
  out += "<h2>Metrics</h2>\n" + MetricsHtml(run.metrics, BaselineWord(run));
  if (std::string note = MalformedTasksNote(MalformedTasksOf(run), run.metrics.all); !note.empty())
    out += "<p class=\"banner running\">" + HtmlEscape(note) + "</p>\n";
  if (s.optimize) out += SpendHtml(s.spend);
  if (auto arms = SummarizeArms(run); !arms.empty()) out += ArmsHtml(arms);
  out += "<h2>Plots</h2>\n" + PlotsHtml(data, s);
  out += "<h2>Tasks</h2>\n" + TaskTableHtml(run, s);
  out += "<h2>Best kernels and attempts</h2>\n";
  for (size_t i = 0; i < s.tasks.size(); ++i) out += TaskSectionHtml(run, s, i);
  return out;
}

}  // namespace

Result<std::filesystem::path> FindChartJs() {
  const char* env = std::getenv("HONE_CHARTJS");
  bool from_env = env && *env;
  std::filesystem::path path = from_env ? env : kDebianChartJsPath;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return path;
  return Status::Unavailable(
      fmt::format("Chart.js not found at {}{}: the HTML report inlines it; install libjs-chart.js "
                  "(apt-get install libjs-chart.js) or set HONE_CHARTJS to a chart.min.js (3.x)",
                  path.string(), from_env ? " ($HONE_CHARTJS)" : ""));
}

Result<std::string> LoadChartJs() {
  HONE_ASSIGN_OR_RETURN(auto path, FindChartJs());
  auto text = ReadFile(path);
  if (!text.ok()) return text.status().With(path.string() + ": ");
  return text;
}

std::string RenderHtmlReport(const RunData& run, const RunSummary& summary,
                             std::string_view chart_js, const std::string& generated) {
  json data = ReportChartData(run, summary);
  std::string title = fmt::format("hone run {}", run.run.id);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + HtmlEscape(title) + "</title>\n<style>" + kStyle + "</style>\n";
  out += std::string("<script>") + kErrorCatcher + "</script>\n</head>\n<body>\n";
  out += BodyHtml(run, summary, data, generated);
  out +=
      "<script type=\"application/json\" id=\"hone-data\">" + ScriptSafeJson(data) + "</script>\n";
  out += "<script id=\"chartjs\">\n" + ScriptSafe(chart_js) + "\n</script>\n";
  out += std::string("<script>") + kPageScript + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace hone
