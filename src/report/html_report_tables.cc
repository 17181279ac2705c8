#include "report/html_report_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "report/html_escape.h"
#include "report/idea_tree.h"
#include "store/candidate_kind.h"
#include "verify/profile_json.h"

namespace hone {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxChecks = 200;  // rows of a kernel's check table

std::string Num(const std::optional<double>& x, const char* format = "{:.2f}") {
  return x ? fmt::format(fmt::runtime(format), *x) : "-";
}

std::string Pct(double x) { return fmt::format("{:.1f}%", 100 * x); }

std::string OutcomeSpan(const std::string& outcome) {
  const char* cls = outcome == "passed"                                  ? "passed"
                    : outcome == "pending" || outcome == "not_evaluated" ? "other"
                                                                         : "failed";
  return fmt::format("<span class=\"{}\">{}</span>", cls, HtmlEscape(outcome));
}

// "fast_1 (eager / compile)", or "fast_1 (reference)" without compile times.
std::string AgainstLabel(const std::string& what, const std::string& baseline, bool compile) {
  return what + " (" + baseline + (compile ? " / compile)" : ")");
}

// A table's "vs compile" header or cell, or nothing without compile times.
std::string CompileHeader(bool compile) { return compile ? "<th class=\"n\">vs compile</th>" : ""; }
std::string CompileCell(bool compile, std::optional<double> speedup) {
  return compile ? "<td class=\"n\">" + FormatSpeedup(speedup) + "</td>" : "";
}

// A reason: its first line, with the whole text behind a <details> when
// there is more.
std::string ReasonHtml(const std::string& reason) {
  std::string first = FirstLine(reason, 140);
  if (first == reason) return HtmlEscape(reason);
  return fmt::format("<details><summary>{}</summary><pre>{}</pre></details>", HtmlEscape(first),
                     HtmlEscape(reason));
}

std::string ChecksHtml(const std::string& checks_json) {
  json checks = json::parse(checks_json.empty() ? "[]" : checks_json, nullptr, false);
  if (!checks.is_array() || checks.empty()) return "<p>No checks recorded.</p>\n";
  // Failed checks first, then in the order they ran.
  std::stable_sort(checks.begin(), checks.end(), [](const json& a, const json& b) {
    return !a.value("passed", true) && b.value("passed", true);
  });
  int failed = 0;
  for (const auto& c : checks) failed += !c.value("passed", true);
  std::string out = fmt::format(
      "<details><summary>checks: {} run, {} failed</summary><table><tr><th>check</th><th>where</th>"
      "<th>result</th><th>detail</th></tr>\n",
      checks.size(), failed);
  for (size_t i = 0; i < checks.size() && i < kMaxChecks; ++i) {
    const json& c = checks[i];
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       HtmlEscape(c.value("name", "")), HtmlEscape(c.value("where", "")),
                       OutcomeSpan(c.value("passed", true) ? "passed" : "failed"),
                       HtmlEscape(c.value("detail", "")));
  }
  if (checks.size() > kMaxChecks)
    out += fmt::format("<tr><td colspan=\"4\">... {} more</td></tr>\n", checks.size() - kMaxChecks);
  return out + "</table></details>\n";
}

// The profiler's diagnosis of a verdict (docs/PROFILING.md): its label,
// evidence and likely fix; "" when the verdict has none.
std::string ProfileHtml(const std::string& verdict) {
  std::optional<ProfileReport> p = ProfileOfVerdict(json::parse(verdict, nullptr, false));
  if (!p) return "";
  if (!p->ran()) return "<p>profiler: not run: " + HtmlEscape(p->not_run) + "</p>\n";
  const ProfileDiagnosis& d = p->diagnosis;
  if (d.label.empty()) return "";
  std::string out = fmt::format("<p>profiler ({}): <b>{}</b></p>\n<ul>", HtmlEscape(p->tool),
                                HtmlEscape(d.label));
  for (const auto& e : d.evidence) out += "<li>" + HtmlEscape(e) + "</li>";
  out += "</ul>\n";
  if (!d.fix.empty()) out += "<p>likely fix: " + HtmlEscape(d.fix) + "</p>\n";
  return out;
}

std::string KernelHtml(const AttemptView& a, bool compile) {
  const CandidateRow& c = a.candidate;
  const EvaluationRow& e = *a.evaluation;
  std::string out =
      fmt::format("<h4 id=\"kernel-{}\">Best kernel: #{} {} ({}, {})</h4>\n<p>{} &middot; {}</p>\n",
                  c.id, c.seq, HtmlEscape(c.label), HtmlEscape(c.kind), HtmlEscape(c.backend),
                  OutcomeSpan(e.status), ReasonHtml(e.reason));
  out += fmt::format(
      "<table><tr><th class=\"n\">speedup</th>{}"
      "<th class=\"n\">candidate median &micro;s</th><th class=\"n\">95% CI &micro;s</th>"
      "<th class=\"n\">baseline median &micro;s</th><th class=\"n\">reps</th>"
      "<th class=\"n\">SOL%</th></tr>\n<tr><td class=\"n\">{}</td>{}"
      "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
      "<td class=\"n\">{}</td><td class=\"n\">{}</td></tr></table>\n",
      CompileHeader(compile), FormatSpeedup(e.speedup), CompileCell(compile, e.speedup_compile),
      Num(e.cand_median_us, "{:.3f}"),
      e.cand_ci_low_us && e.cand_ci_high_us
          ? fmt::format("{:.3f} - {:.3f}", *e.cand_ci_low_us, *e.cand_ci_high_us)
          : "-",
      Num(e.ref_median_us, "{:.3f}"), e.reps > 0 ? std::to_string(e.reps) : "-",
      Num(e.sol_percent, "{:.1f}"));
  out += ProfileHtml(e.verdict);
  out += ChecksHtml(e.checks);
  if (c.source)
    out += fmt::format("<details><summary>source: {} line(s)</summary><pre>{}</pre></details>\n",
                       std::count(c.source->begin(), c.source->end(), '\n') + 1,
                       HtmlEscape(*c.source));
  return out;
}

std::string AttemptsHtml(const RunData& run, const std::string& task_hash) {
  const bool compile = run.metrics.all.HasCompileTimes();
  std::string out =
      "<details><summary>every attempt</summary><table><tr><th class=\"n\">seq</th>"
      "<th>kind</th><th>label</th><th>outcome</th><th>reason</th><th class=\"n\">speedup</th>" +
      CompileHeader(compile) +
      "<th class=\"n\">candidate &micro;s</th>"
      "<th class=\"n\">baseline &micro;s</th><th class=\"n\">at s</th></tr>\n";
  for (const auto& a : run.attempts) {
    if (a.candidate.task_hash != task_hash) continue;
    const auto& e = a.evaluation;
    auto field = [&](auto member) -> std::optional<double> {
      return e ? (*e).*member : std::nullopt;
    };
    out += fmt::format(
        "<tr><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td class=\"n\">{}</td>{}<td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{:.1f}</td></tr>\n",
        a.candidate.seq, HtmlEscape(a.candidate.kind), HtmlEscape(a.candidate.label),
        OutcomeSpan(a.outcome), ReasonHtml(AttemptReason(a)),
        FormatSpeedup(field(&EvaluationRow::speedup)),
        CompileCell(compile, field(&EvaluationRow::speedup_compile)),
        Num(field(&EvaluationRow::cand_median_us), "{:.3f}"),
        Num(field(&EvaluationRow::ref_median_us), "{:.3f}"), a.at_seconds);
  }
  return out + "</table></details>\n";
}

// One node of the idea tree and, nested, its children.
std::string IdeaNodeHtml(const RunData& run, const IdeaTree& t, size_t node) {
  const IdeaNode& n = t.nodes[node];
  const AttemptView& a = run.attempts[n.attempt];
  const CandidateRow& c = a.candidate;
  std::string name = OwnKind(c.kind) == kIdeaKind   ? HtmlEscape(c.label)
                     : OwnKind(c.kind) == kRootKind ? std::string("root")
                                                    : "root taken from " + HtmlEscape(c.kind);
  std::string result = OutcomeSpan(a.outcome);
  if (a.passed()) {
    result += " " + FormatSpeedup(a.evaluation->speedup);
    if (n.gain) result += fmt::format(" ({:.2f}x its parent)", *n.gain);
  } else if (std::string why = AttemptReason(a); !why.empty()) {
    result += ": " + ReasonHtml(why);
  }
  std::string out =
      fmt::format("<li><b>#{}</b> {} &mdash; {}{}", c.seq, name, result,
                  n.expansions ? fmt::format(" &middot; expanded {}x", n.expansions) : "");
  if (!n.children.empty()) {
    out += "<ul>";
    for (size_t child : n.children) out += IdeaNodeHtml(run, t, child);
    out += "</ul>";
  }
  return out + "</li>\n";
}

std::string IdeaTreeHtml(const RunData& run, const IdeaTree& t) {
  std::string out = fmt::format(
      "<h4>Idea tree</h4>\n<p class=\"meta\">{} root(s) &middot; {} idea(s): {} passed, {} "
      "failed &middot; {} call(s) for ideas</p>\n<ul class=\"tree\">\n",
      t.roots.size(), t.ideas, t.passed, t.failed, t.expansions);
  for (size_t r : t.roots) out += IdeaNodeHtml(run, t, r);
  return out + "</ul>\n";
}

}  // namespace

std::string MetricsHtml(const SuiteMetrics& m, const std::string& baseline) {
  const bool compile = m.all.HasCompileTimes();
  std::vector<std::pair<std::string, const BenchMetrics*>> cols = {{"all", &m.all}};
  for (const auto& [name, bm] : m.by_category) cols.push_back({name, &bm});
  using Cell = std::function<std::string(const BenchMetrics&)>;
  std::vector<std::pair<std::string, Cell>> rows = {
      {"tasks", [](const BenchMetrics& b) { return std::to_string(b.tasks); }},
      {"attempts (passed)",
       [](const BenchMetrics& b) { return fmt::format("{} ({})", b.attempts, b.attempts_passed); }},
      {"correct attempts", [](const BenchMetrics& b) { return Pct(b.correctness_rate); }},
      {"tasks solved", [](const BenchMetrics& b) { return Pct(b.task_correctness_rate); }}};
  for (size_t i = 0; i < std::size(kFastPThresholds); ++i)
    rows.push_back({AgainstLabel(fmt::format("fast_{}", kFastPThresholds[i]), baseline, compile),
                    [i, compile](const BenchMetrics& b) {
                      const FastP& f = b.fast_p[i];
                      if (!compile) return Pct(f.eager);
                      return Pct(f.eager) + " / " + (f.compile ? Pct(*f.compile) : "-");
                    }});
  rows.push_back({AgainstLabel("geomean speedup, solved", baseline, compile),
                  [compile](const BenchMetrics& b) {
                    if (!compile) return FormatSpeedup(b.geomean_speedup);
                    return FormatSpeedup(b.geomean_speedup) + " / " +
                           FormatSpeedup(b.geomean_speedup_compile);
                  }});
  rows.push_back({"geomean speedup, all tasks (unsolved 1x)", [](const BenchMetrics& b) {
                    return FormatSpeedup(b.geomean_speedup_all_tasks);
                  }});
  std::set<int> ks;
  for (const auto& [name, bm] : cols)
    for (const auto& p : bm->pass_at_k) ks.insert(p.k);
  for (int k : ks)
    rows.push_back({fmt::format("pass@{}", k), [k](const BenchMetrics& b) {
                      for (const auto& p : b.pass_at_k)
                        if (p.k == k) return Pct(p.value);
                      return std::string("-");
                    }});
  rows.push_back({"SOL% median [p25, p75]", [](const BenchMetrics& b) {
                    if (!b.sol_percent) return std::string("-");
                    const Quantiles& q = *b.sol_percent;
                    return fmt::format("{:.1f} [{:.1f}, {:.1f}]", q.median, q.p25, q.p75);
                  }});
  std::string out = "<table class=\"metrics\"><tr><th>metric</th>";
  for (const auto& [name, bm] : cols) out += "<th class=\"n\">" + HtmlEscape(name) + "</th>";
  out += "</tr>\n";
  for (const auto& [label, cell] : rows) {
    out += "<tr><td>" + HtmlEscape(label) + "</td>";
    for (const auto& [name, bm] : cols) out += "<td class=\"n\">" + HtmlEscape(cell(*bm)) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string TaskTableHtml(const RunData& run, const RunSummary& s) {
  const bool compile = run.metrics.all.HasCompileTimes();
  std::string out = std::string(
                        "<table><tr><th>task</th><th>category</th><th class=\"n\">attempts</th>"
                        "<th class=\"n\">passed</th><th class=\"n\">speedup</th>") +
                    CompileHeader(compile) + "<th class=\"n\">SOL%</th><th>best kernel</th></tr>\n";
  for (size_t i = 0; i < s.tasks.size(); ++i) {
    const TaskSummary& t = s.tasks[i];
    std::string best = "-";
    if (t.best) {
      const CandidateRow& c = run.attempts[*t.best].candidate;
      best = fmt::format("<a href=\"#kernel-{}\">#{}{}</a>", c.id, c.seq,
                         c.label.empty() ? "" : " " + HtmlEscape(c.label));
    }
    out += fmt::format(
        "<tr><td><a href=\"#task-{}\">{}</a></td><td>{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td>{}"
        "<td class=\"n\">{}</td><td>{}</td></tr>\n",
        i, HtmlEscape(t.name), HtmlEscape(t.category), t.attempts, t.passed,
        FormatSpeedup(t.speedup), CompileCell(compile, t.speedup_compile),
        Num(t.sol_percent, "{:.1f}"), best);
  }
  return out + "</table>\n";
}

std::string ArmsHtml(const std::vector<ArmSummary>& arms) {
  std::string out =
      "<h3>Strategies (auto)</h3>\n<table><tr><th>strategy</th><th class=\"n\">calls</th>"
      "<th class=\"n\">passed</th><th class=\"n\">gain of the best speedup</th>"
      "<th class=\"n\">cost $</th><th class=\"n\">tokens</th></tr>\n";
  for (const ArmSummary& a : arms)
    out += fmt::format(
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.2f}</td>"
        "<td class=\"n\">{:.4f}</td><td class=\"n\">{}</td></tr>\n",
        HtmlEscape(a.arm), a.calls, a.passed, a.gain, a.cost_usd, a.tokens);
  return out + "</table>\n";
}

std::string TaskSectionHtml(const RunData& run, const RunSummary& s, size_t i) {
  const TaskSummary& t = s.tasks[i];
  const bool compile = run.metrics.all.HasCompileTimes();
  std::string out = fmt::format(
      "<h3 id=\"task-{}\">{}</h3>\n<p class=\"meta\">category {} &middot; {} attempts, {} "
      "passed &middot; best {}{}</p>\n",
      i, HtmlEscape(t.name), HtmlEscape(t.category.empty() ? "-" : t.category), t.attempts,
      t.passed, FormatSpeedup(t.speedup),
      compile ? " (vs compile " + FormatSpeedup(t.speedup_compile) + ")" : "");
  out += t.best ? KernelHtml(run.attempts[*t.best], compile) : "<p>No correct kernel.</p>\n";
  if (IdeaTree tree = BuildIdeaTree(run, t.task_hash); !tree.empty())
    out += IdeaTreeHtml(run, tree);
  if (t.attempts > 0) out += AttemptsHtml(run, t.task_hash);
  return out;
}

std::string SpendHtml(const CallSpend& s) {
  return fmt::format(
      "<p>{} LLM calls ({} failed) &middot; {} input + {} output tokens &middot; ${:.4f} "
      "&middot; {:.1f} s waiting on the LLM</p>\n",
      s.calls, s.failed_calls, s.input_tokens, s.output_tokens, s.cost_usd, s.seconds);
}

}  // namespace hone
