#include "report/bench_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>

#include "core/quantile.h"
#include "report/json_or_null.h"

namespace hone {
namespace {

using json = nlohmann::json;

// What a task's outcomes come to.
struct TaskTally {
  int n = 0, c = 0, undecided = 0;
  std::optional<double> best, best_compile, best_sol;
};

void Keep(std::optional<double>& best, const std::optional<double>& x) {
  if (x && std::isfinite(*x) && *x > 0 && (!best || *x > *best)) best = x;
}

std::map<std::string, TaskTally> Summarise(const std::vector<SuiteTask>& tasks,
                                           const std::vector<TaskOutcome>& outcomes) {
  std::map<std::string, TaskTally> by_task;
  for (const auto& t : tasks) by_task[t.key];
  for (const auto& o : outcomes) {
    auto it = by_task.find(o.task);
    if (it == by_task.end()) continue;  // not in this suite (or this category)
    TaskTally& s = it->second;
    if (!o.decided) {
      ++s.undecided;
      continue;
    }
    ++s.n;
    if (!o.passed) continue;
    ++s.c;
    Keep(s.best, o.speedup);
    Keep(s.best_compile, o.speedup_compile);
    Keep(s.best_sol, o.sol_percent);
  }
  return by_task;
}

std::optional<Quantiles> QuantilesOf(std::vector<double> xs) {
  if (xs.empty()) return std::nullopt;
  std::sort(xs.begin(), xs.end());
  return Quantiles{static_cast<int>(xs.size()), xs.front(),
                   QuantileOfSorted(xs, 0.25),  QuantileOfSorted(xs, 0.5),
                   QuantileOfSorted(xs, 0.75),  xs.back()};
}

std::optional<double> GeoMean(const std::vector<double>& xs) {
  if (xs.empty()) return std::nullopt;
  double sum = 0;
  for (double x : xs) sum += std::log(x);
  return std::exp(sum / static_cast<double>(xs.size()));
}

std::vector<int> PassKs(int fewest) {
  std::vector<int> ks;
  for (int k : {1, 2, 5, 10, 20, 50, 100})
    if (k <= fewest) ks.push_back(k);
  return ks;
}

}  // namespace

double PassAtKEstimate(int n, int c, int k) {
  assert(0 <= c && c <= n && 1 <= k && k <= n);
  if (n - c < k) return 1.0;
  // 1 - prod_{i = n-c+1}^{n} (1 - k / i): the ratio of binomials without
  // overflowing them.
  double miss = 1.0;
  for (int i = n - c + 1; i <= n; ++i) miss *= 1.0 - static_cast<double>(k) / i;
  return 1.0 - miss;
}

BenchMetrics ComputeMetrics(const std::vector<SuiteTask>& tasks,
                            const std::vector<TaskOutcome>& outcomes) {
  BenchMetrics m;
  auto by_task = Summarise(tasks, outcomes);
  m.tasks = static_cast<int>(by_task.size());
  bool any_compile = false;
  std::vector<double> best, best_compile, sols;
  double log_all = 0;
  int fewest = 0;
  for (const auto& [key, s] : by_task) {
    m.attempts += s.n;
    m.not_decided += s.undecided;
    m.attempts_passed += s.c;
    if (s.n > 0) {
      ++m.tasks_attempted;
      fewest = fewest == 0 ? s.n : std::min(fewest, s.n);
    }
    if (s.c > 0) ++m.tasks_correct;
    if (s.best) best.push_back(*s.best);
    if (s.best_compile) best_compile.push_back(*s.best_compile);
    if (s.best_sol) sols.push_back(*s.best_sol);
    log_all += s.best ? std::log(*s.best) : 0.0;
  }
  for (const auto& o : outcomes)
    if (o.speedup_compile && by_task.count(o.task)) any_compile = true;
  m.correctness_rate = m.attempts ? static_cast<double>(m.attempts_passed) / m.attempts : 0;
  m.task_correctness_rate = m.tasks ? static_cast<double>(m.tasks_correct) / m.tasks : 0;
  for (double p : kFastPThresholds) {
    FastP f;
    f.p = p;
    int eager = 0, compile = 0;
    for (const auto& [key, s] : by_task) {
      eager += s.best && *s.best > p;
      compile += s.best_compile && *s.best_compile > p;
    }
    f.eager = m.tasks ? static_cast<double>(eager) / m.tasks : 0;
    if (any_compile) f.compile = m.tasks ? static_cast<double>(compile) / m.tasks : 0;
    m.fast_p.push_back(f);
  }
  m.tasks_timed = static_cast<int>(best.size());
  m.geomean_speedup = GeoMean(best);
  m.geomean_speedup_compile = GeoMean(best_compile);
  m.geomean_speedup_all_tasks = m.tasks ? std::exp(log_all / m.tasks) : 1.0;
  for (int k : PassKs(fewest)) {
    double sum = 0;
    for (const auto& [key, s] : by_task)
      if (s.n > 0) sum += PassAtKEstimate(s.n, s.c, k);
    m.pass_at_k.push_back({k, m.tasks ? sum / m.tasks : 0});
  }
  m.sol_percent = QuantilesOf(sols);
  m.timed = m.tasks_correct == 0 || m.tasks_timed > 0;
  return m;
}

SuiteMetrics ComputeSuiteMetrics(const std::vector<SuiteTask>& tasks,
                                 const std::vector<TaskOutcome>& outcomes) {
  SuiteMetrics out;
  out.all = ComputeMetrics(tasks, outcomes);
  std::map<std::string, std::vector<SuiteTask>> groups;
  for (const auto& t : tasks) groups[t.category].push_back(t);
  if (groups.size() < 2) return out;
  for (const auto& [category, members] : groups)
    out.by_category[category] = ComputeMetrics(members, outcomes);
  return out;
}

json MetricsToJson(const BenchMetrics& m) {
  json fast = json::array();
  auto timed = [&](const std::optional<double>& x) {
    return m.timed ? JsonOrNull(x) : json(nullptr);
  };
  for (const auto& f : m.fast_p)
    fast.push_back({{"p", f.p}, {"eager", timed(f.eager)}, {"compile", timed(f.compile)}});
  json pass = json::object();
  for (const auto& p : m.pass_at_k) pass[std::to_string(p.k)] = p.value;
  json sol = nullptr;
  if (m.sol_percent) {
    const Quantiles& q = *m.sol_percent;
    sol = {{"n", q.n},           {"min", q.min}, {"p25", q.p25},
           {"median", q.median}, {"p75", q.p75}, {"max", q.max}};
  }
  return {{"tasks", m.tasks},
          {"tasks_attempted", m.tasks_attempted},
          {"tasks_correct", m.tasks_correct},
          {"attempts", m.attempts},
          {"attempts_passed", m.attempts_passed},
          {"not_decided", m.not_decided},
          {"correctness_rate", m.correctness_rate},
          {"task_correctness_rate", m.task_correctness_rate},
          {"fast_p", fast},
          {"geomean_speedup", JsonOrNull(m.geomean_speedup)},
          {"geomean_speedup_compile", JsonOrNull(m.geomean_speedup_compile)},
          {"tasks_timed", m.tasks_timed},
          {"geomean_speedup_all_tasks", timed(m.geomean_speedup_all_tasks)},
          {"timed", m.timed},
          {"pass_at_k", pass},
          {"sol_percent", sol}};
}

json SuiteMetricsToJson(const SuiteMetrics& m) {
  json j = MetricsToJson(m.all);
  if (!m.by_category.empty()) {
    json cats = json::object();
    for (const auto& [name, bm] : m.by_category) cats[name] = MetricsToJson(bm);
    j["by_category"] = cats;
  }
  return j;
}

std::string MalformedTasksNote(int malformed, const BenchMetrics& all) {
  if (malformed <= 0) return "";
  const int listed = all.tasks + malformed;
  return fmt::format(
      "note: {} malformed task{} not in these figures: {} of the {} tasks listed solved "
      "({:.0f}%)",
      malformed, malformed == 1 ? " is" : "s are", all.tasks_correct, listed,
      listed ? 100.0 * all.tasks_correct / listed : 0.0);
}

std::string SuiteMetricsTable(const SuiteMetrics& m, const std::string& baseline) {
  std::vector<std::pair<std::string, const BenchMetrics*>> cols = {{"all", &m.all}};
  for (const auto& [name, bm] : m.by_category) cols.push_back({name, &bm});
  auto pct = [](double x) { return fmt::format("{:.1f}%", 100 * x); };
  auto times = [](const std::optional<double>& x) {
    return x ? fmt::format("{:.2f}x", *x) : std::string("-");
  };
  // A speed metric's cell: "not timed" where nothing solved was timed.
  auto speed = [](std::function<std::string(const BenchMetrics&)> cell) {
    return [cell](const BenchMetrics& b) { return b.timed ? cell(b) : std::string("not timed"); };
  };
  std::vector<std::pair<std::string, std::function<std::string(const BenchMetrics&)>>> rows = {
      {"tasks", [](const BenchMetrics& b) { return std::to_string(b.tasks); }},
      {"attempts (passed)",
       [](const BenchMetrics& b) { return fmt::format("{} ({})", b.attempts, b.attempts_passed); }},
      {"correct attempts", [&](const BenchMetrics& b) { return pct(b.correctness_rate); }},
      {"tasks solved", [&](const BenchMetrics& b) { return pct(b.task_correctness_rate); }},
  };
  // Evaluations a busy GPU left undecided: not attempts, but not hidden.
  if (m.all.not_decided > 0)
    rows.insert(rows.begin() + 2, {"not decided (GPU busy)", [](const BenchMetrics& b) {
                                     return std::to_string(b.not_decided);
                                   }});
  // torch.compile rows only where some task had a torch.compile time.
  bool compile = m.all.HasCompileTimes();
  for (size_t i = 0; i < std::size(kFastPThresholds); ++i) {
    rows.push_back({fmt::format("fast_{} {}", kFastPThresholds[i], baseline),
                    speed([&, i](const BenchMetrics& b) { return pct(b.fast_p[i].eager); })});
    if (!compile) continue;
    rows.push_back(
        {fmt::format("fast_{} compile", kFastPThresholds[i]), [&, i](const BenchMetrics& b) {
           return b.fast_p[i].compile ? pct(*b.fast_p[i].compile) : std::string("-");
         }});
  }
  rows.push_back({"geomean speedup (solved)",
                  speed([&](const BenchMetrics& b) { return times(b.geomean_speedup); })});
  if (compile)
    rows.push_back({"geomean vs compile",
                    [&](const BenchMetrics& b) { return times(b.geomean_speedup_compile); }});
  rows.push_back({"geomean (all, unsolved 1x)", speed([&](const BenchMetrics& b) {
                    return times(b.geomean_speedup_all_tasks);
                  })});
  int most_k = 0;
  for (const auto& [name, bm] : cols)
    for (const auto& p : bm->pass_at_k) most_k = std::max(most_k, p.k);
  for (int k : PassKs(most_k))
    rows.push_back({fmt::format("pass@{}", k), [&, k](const BenchMetrics& b) {
                      for (const auto& p : b.pass_at_k)
                        if (p.k == k) return pct(p.value);
                      return std::string("-");
                    }});
  rows.push_back({"SOL% median [p25, p75]", speed([](const BenchMetrics& b) {
                    if (!b.sol_percent) return std::string("-");
                    if (b.sol_percent->n == 1) return fmt::format("{:.1f}", b.sol_percent->median);
                    return fmt::format("{:.1f} [{:.1f}, {:.1f}]", b.sol_percent->median,
                                       b.sol_percent->p25, b.sol_percent->p75);
                  })});
  // Each column as wide as its widest cell.
  std::vector<size_t> width;
  for (const auto& [name, bm] : cols) {
    size_t w = name.size();
    for (const auto& [label, cell] : rows) w = std::max(w, cell(*bm).size());
    width.push_back(w);
  }
  std::string out = fmt::format("{:<27}", "");
  for (size_t c = 0; c < cols.size(); ++c) out += fmt::format("  {:>{}}", cols[c].first, width[c]);
  out += "\n";
  for (const auto& [label, cell] : rows) {
    out += fmt::format("{:<27}", label);
    for (size_t c = 0; c < cols.size(); ++c)
      out += fmt::format("  {:>{}}", cell(*cols[c].second), width[c]);
    out += "\n";
  }
  return out;
}

}  // namespace hone
