#include "report/html_report_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/bench_metrics.h"
#include "report/html_escape.h"

namespace hone {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxReasons = 12;       // bars in the failure-reason plot
constexpr size_t kReasonChars = 120;     // a reason label's length, at most
constexpr size_t kReasonLineChars = 40;  // its lines when wrapped
constexpr size_t kMaxProgressTasks = 8;  // lines in the progress plots

double Round4(double x) { return std::round(x * 1e4) / 1e4; }

double FractionAbove(const std::vector<double>& best, double p, size_t tasks) {
  if (tasks == 0) return 0;
  auto above = std::count_if(best.begin(), best.end(), [p](double x) { return x > p; });
  return Round4(static_cast<double>(above) / static_cast<double>(tasks));
}

// The fast_p plot's x range, for a log axis: from below the slowest speedup
// (at most 0.25) to past the fastest (at least 4), so the curve is flat at
// both ends and KernelBench's thresholds (0.5 to 2) lie well inside.
std::pair<double, double> FastPRange(const std::vector<double>& speedups) {
  double lo = 0.25, hi = 4;
  for (double x : speedups) {
    if (!std::isfinite(x) || x <= 0) continue;
    lo = std::min(lo, x / 1.25);
    hi = std::max(hi, x * 1.25);
  }
  return {lo, hi};
}

// Where the fast_p curves change: the range's ends and every speedup inside,
// in order. Drawn as steps after each point, the curves are exact.
std::vector<double> FastPBreaks(const std::vector<double>& speedups) {
  auto [lo, hi] = FastPRange(speedups);
  std::set<double> points = {lo, hi};
  for (double x : speedups)
    if (x > lo && x < hi) points.insert(x);
  return {points.begin(), points.end()};
}

// fast_p over p at its breaks, for eager and (when any outcome had one)
// torch.compile, with the KernelBench thresholds as computed by
// bench_metrics.
json FastPData(const RunSummary& s, const BenchMetrics& m) {
  std::vector<double> eager, compile;
  for (const auto& t : s.tasks) {
    if (t.speedup) eager.push_back(*t.speedup);
    if (t.speedup_compile) compile.push_back(*t.speedup_compile);
  }
  bool with_compile = m.HasCompileTimes();
  std::vector<double> all = eager;
  if (with_compile) all.insert(all.end(), compile.begin(), compile.end());
  json p = json::array(), e = json::array(), c = json::array();
  for (double x : FastPBreaks(all)) {
    p.push_back(x);
    e.push_back(FractionAbove(eager, x, s.tasks.size()));
    c.push_back(FractionAbove(compile, x, s.tasks.size()));
  }
  json thresholds = json::array();
  for (const auto& f : m.fast_p)
    thresholds.push_back(
        {{"p", f.p}, {"eager", f.eager}, {"compile", f.compile ? json(*f.compile) : json()}});
  return {
      {"p", p}, {"eager", e}, {"compile", with_compile ? c : json()}, {"thresholds", thresholds}};
}

// Passed attempts' speedups over eager in half-octave bins: bin k holds
// [2^(k/2), 2^((k+1)/2)). Null when no passed attempt was timed.
json SpeedupHistogram(const RunData& run) {
  std::vector<int> bins;
  for (const auto& a : run.attempts) {
    if (!a.passed() || !a.evaluation->speedup) continue;
    double x = *a.evaluation->speedup;
    if (std::isfinite(x) && x > 0) bins.push_back(static_cast<int>(std::floor(2 * std::log2(x))));
  }
  if (bins.empty()) return nullptr;
  auto [lo, hi] = std::minmax_element(bins.begin(), bins.end());
  std::vector<int> counts(*hi - *lo + 1, 0);
  for (int b : bins) ++counts[b - *lo];
  json labels = json::array(), low = json::array();
  for (int k = *lo; k <= *hi; ++k) {
    double a = std::exp2(k / 2.0), b = std::exp2((k + 1) / 2.0);
    labels.push_back(fmt::format("{:.3g}-{:.3g}x", a, b));
    low.push_back(Round4(a));
  }
  return {{"labels", labels}, {"low", low}, {"counts", counts}};
}

json OutcomeData(const RunSummary& s) {
  json labels = json::array(), counts = json::array();
  for (const char* name : kOutcomeOrder) {
    auto it = s.outcomes.find(name);
    if (it == s.outcomes.end() || it->second == 0) continue;
    labels.push_back(name);
    counts.push_back(it->second);
  }
  return {{"labels", labels}, {"counts", counts}};
}

// Words of `text` on lines of at most `width` characters (a longer word is
// cut).
std::vector<std::string> WrapWords(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = std::min(text.find(' ', i), text.size());
    std::string word = text.substr(i, std::min(end - i, width));
    i = end - i > width ? i + width : end + 1;
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// Each label is its lines (Chart.js draws an array as a multi-line label).
json ReasonData(const RunSummary& s) {
  json labels = json::array(), counts = json::array(), outcomes = json::array();
  for (size_t i = 0; i < s.reasons.size() && i < kMaxReasons; ++i) {
    const ReasonCount& r = s.reasons[i];
    labels.push_back(
        WrapWords(FirstLine(r.outcome + ": " + (r.reason.empty() ? "-" : r.reason), kReasonChars),
                  kReasonLineChars));
    counts.push_back(r.count);
    outcomes.push_back(r.outcome);
  }
  return {{"labels", labels}, {"counts", counts}, {"outcomes", outcomes}};
}

// The tasks with the most attempts, at most kMaxProgressTasks of them.
std::vector<size_t> ProgressTasks(const RunSummary& s) {
  std::vector<size_t> order(s.tasks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return s.tasks[x].attempts > s.tasks[y].attempts; });
  while (!order.empty() &&
         (order.size() > kMaxProgressTasks || s.tasks[order.back()].attempts == 0))
    order.pop_back();
  return order;
}

// Per task, the best passed speedup so far, one point per attempt from the
// first passed one on; x is the attempt's seq or its time.
json ProgressSeries(const RunData& run, const RunSummary& s, bool by_time) {
  std::vector<size_t> attempts(run.attempts.size());
  for (size_t i = 0; i < attempts.size(); ++i) attempts[i] = i;
  std::stable_sort(attempts.begin(), attempts.end(), [&](size_t x, size_t y) {
    const AttemptView &a = run.attempts[x], &b = run.attempts[y];
    return by_time ? a.at_seconds < b.at_seconds : a.candidate.seq < b.candidate.seq;
  });
  json series = json::array();
  for (size_t t : ProgressTasks(s)) {
    json points = json::array();
    std::optional<double> best;
    for (size_t i : attempts) {
      const AttemptView& a = run.attempts[i];
      if (a.candidate.task_hash != s.tasks[t].task_hash) continue;
      if (a.passed() && a.evaluation->speedup && (!best || *a.evaluation->speedup > *best))
        best = a.evaluation->speedup;
      double x = by_time ? Round4(a.at_seconds) : a.candidate.seq;
      if (best) points.push_back({{"x", x}, {"y", Round4(*best)}});
    }
    series.push_back({{"label", s.tasks[t].name}, {"points", points}});
  }
  return series;
}

// Cumulative dollars and tokens after each LLM call, by the call's time.
json SpendSeries(const RunData& run) {
  std::vector<std::pair<double, const LlmCallRow*>> calls;
  for (const auto& c : run.calls)
    calls.push_back({std::max(0.0, SecondsBetween(run.run.created, c.created)), &c});
  std::stable_sort(calls.begin(), calls.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  json points = json::array();
  double cost = 0;
  int64_t tokens = 0;
  for (const auto& [t, c] : calls) {
    cost += c->cost_usd;
    tokens += c->input_tokens + c->output_tokens;
    points.push_back({{"t", Round4(t)}, {"cost", cost}, {"tokens", tokens}});
  }
  return points;
}

std::string Plot(const std::string& name, const std::string& title, const std::string& note,
                 int height = 320) {
  return fmt::format(
      "<div class=\"plot\"><h3>{}</h3><div class=\"box\" style=\"height:{}px\">"
      "<canvas id=\"plot-{}\" data-chart=\"{}\"></canvas></div><p>{}</p></div>\n",
      HtmlEscape(title), height, name, name, HtmlEscape(note));
}

std::string NoPlot(const std::string& title, const std::string& why) {
  return fmt::format("<div class=\"plot\"><h3>{}</h3><p>{}</p></div>\n", HtmlEscape(title),
                     HtmlEscape(why));
}

// Room for every bar of the reasons plot and its label's lines.
int ReasonsPlotHeight(const json& labels) {
  int height = 80;
  for (const auto& l : labels) height += 12 + 14 * static_cast<int>(std::max<size_t>(1, l.size()));
  return height;
}

}  // namespace

std::string PlotsHtml(const json& data, const RunSummary& s) {
  std::string out = "<div class=\"grid\">\n";
  out += Plot("fastp", "fast_p",
              "Share of the suite's tasks whose best correct kernel is more than p times faster "
              "than the baseline, p on a log axis; hollow markers at KernelBench's thresholds "
              "0.5, 0.8, 1, 1.5 and 2. At the left edge the curve is fast_0, the share of tasks "
              "with a correct, timed kernel.");
  out += data["speedup_histogram"].is_null()
             ? NoPlot("Speedups of passed attempts", "No passed attempt was timed.")
             : Plot("histogram", "Speedups of passed attempts",
                    "Every passed, timed attempt; green bins are at or above 1x.");
  out += data["outcomes"]["labels"].empty()
             ? NoPlot("Attempts by outcome", "No attempts yet.")
             : Plot("outcomes", "Attempts by outcome",
                    "Every attempt's outcome: a verdict, or what stopped it before one.");
  const json& reasons = data["reasons"]["labels"];
  out += reasons.empty() ? NoPlot("Failure reasons", "No failed attempts.")
                         : Plot("reasons", "Failure reasons",
                                "The most frequent first lines of failed attempts' reasons.",
                                ReasonsPlotHeight(reasons));
  if (s.optimize) {
    out += Plot("progress_seq", "Best speedup so far, by candidate",
                "Per task (the most attempted), the best passed speedup up to each candidate.");
    out += Plot("progress_time", "Best speedup so far, over time",
                "The same against the time each attempt was done.");
    out += data["spend"].empty() ? NoPlot("Spend", "No LLM calls recorded.")
                                 : Plot("spend", "Spend", "Cumulative LLM cost and tokens.");
  }
  return out + "</div>\n";
}

json ReportChartData(const RunData& run, const RunSummary& s) {
  json fast_p = FastPData(s, run.metrics.all);
  std::string word = BaselineWord(run);
  fast_p["label"] = word == "eager" ? "vs eager" : "vs the " + word;
  json d = {{"run", {{"id", run.run.id}, {"kind", run.run.kind}, {"status", run.run.status}}},
            {"fast_p", fast_p},
            {"speedup_histogram", SpeedupHistogram(run)},
            {"outcomes", OutcomeData(s)},
            {"reasons", ReasonData(s)},
            {"optimize", s.optimize}};
  if (s.optimize) {
    d["progress_by_candidate"] = ProgressSeries(run, s, false);
    d["progress_by_time"] = ProgressSeries(run, s, true);
    d["spend"] = SpendSeries(run);
  }
  return d;
}

const char kPageScript[] = R"js(
(function () {
  var data = JSON.parse(document.getElementById('hone-data').textContent);
  var palette = ['#0969da', '#cf222e', '#1a7f37', '#8250df', '#bc4c00', '#1b7c83', '#bf3989',
                 '#6e7781'];
  var outcomeColor = function (o) {
    return o === 'passed' ? '#1a7f37' : (o === 'pending' || o === 'not_evaluated') ? '#8c959f'
         : (o === 'llm_error' || o === 'no_code') ? '#bc4c00' : '#cf222e';
  };
  var axis = function (title, extra) {
    return Object.assign({ title: { display: true, text: title } }, extra || {});
  };
  // Room around every plot: nothing drawn may touch the canvas's edge (the
  // page checks that, below). Legends show each series' own mark: a line for
  // a curve, the marker's shape for markers.
  var base = function (scales, legend) {
    return { animation: false, responsive: true, maintainAspectRatio: false,
             layout: { padding: 8 },
             plugins: { legend: { display: legend !== false, labels: { usePointStyle: true } } },
             scales: scales };
  };
  var line = function (label, points, color, extra) {
    return Object.assign({ label: label, data: points, showLine: true, pointRadius: 0,
                           pointStyle: 'line', borderWidth: 2, borderColor: color,
                           backgroundColor: color }, extra || {});
  };
  var marker = function (label, points, color, style) {
    return { label: label, data: points, pointStyle: style, pointRadius: 6, pointHoverRadius: 7,
             borderWidth: 2, borderColor: color, backgroundColor: '#ffffff' };
  };
  // Every stepped series holds a point's value until the next point. In
  // Chart.js that is 'before' (its 'after' takes the next point's value
  // right after a point, which draws each step one point early).
  var hold = 'before';
  var xy = function (xs, ys) { return xs.map(function (x, i) { return { x: x, y: ys[i] }; }); };
  var times = function (v) { return String(+v.toPrecision(3)) + 'x'; };
  // Ticks of a speedup log axis: the powers of two in range, and 0.8 and 1.5
  // while the axis spans few enough octaves for their labels to fit.
  var speedupTicks = function (min, max) {
    var v = Math.log2(max / min) <= 5 ? [0.8, 1.5] : [];
    for (var k = Math.ceil(Math.log2(min)); Math.pow(2, k) <= max; k++) v.push(Math.pow(2, k));
    return v.filter(function (x) { return x >= min && x <= max; })
            .sort(function (a, b) { return a - b; })
            .map(function (x) { return { value: x }; });
  };
  // A share from 0 to 100%, with room above and below so that a curve or a
  // marker at 0 or 1 is not cut by the plot area's edge.
  var share = { min: -0.05, max: 1.05,
                afterBuildTicks: function (a) {
                  a.ticks = [0, 0.2, 0.4, 0.6, 0.8, 1].map(function (v) { return { value: v }; });
                },
                ticks: { callback: function (v) { return Math.round(100 * v) + '%'; } } };
  var builders = {
    fastp: function (d) {
      var f = d.fast_p, lo = f.p[0], hi = f.p[f.p.length - 1];
      var at = function (key) {  // a log axis has no p = 0
        return f.thresholds.filter(function (t) { return t.p > 0; })
                .map(function (t) { return { x: t.p, y: t[key] }; });
      };
      var sets = [line(f.label, xy(f.p, f.eager), palette[0], { stepped: hold }),
                  marker('KernelBench thresholds, ' + f.label.substring(3), at('eager'),
                         palette[0], 'rectRot')];
      if (f.compile) {
        sets.push(line('vs torch.compile', xy(f.p, f.compile), palette[1],
                       { stepped: hold, borderDash: [6, 3] }));
        sets.push(marker('KernelBench thresholds, torch.compile', at('compile'), palette[1],
                         'triangle'));
      }
      return { type: 'scatter', data: { datasets: sets },
               options: base({ x: axis('p (speedup over the baseline, log scale)',
                                       { type: 'logarithmic', min: lo, max: hi,
                                         afterBuildTicks: function (a) { a.ticks = speedupTicks(lo, hi); },
                                         ticks: { callback: times } }),
                               y: axis('share of tasks faster than p', share) }) };
    },
    histogram: function (d) {
      var h = d.speedup_histogram;
      return { type: 'bar', data: { labels: h.labels, datasets: [{ label: 'passed attempts',
               data: h.counts, backgroundColor: h.low.map(function (l) {
                 return l >= 1 ? '#1a7f37' : '#bc4c00'; }) }] },
               options: base({ x: axis('speedup over the baseline (half-octave bins)'),
                               y: axis('attempts', { beginAtZero: true, ticks: { precision: 0 } }) },
                             false) };
    },
    outcomes: function (d) {
      var o = d.outcomes;
      return { type: 'bar', data: { labels: o.labels, datasets: [{ label: 'attempts',
               data: o.counts, backgroundColor: o.labels.map(outcomeColor) }] },
               options: base({ x: axis('outcome'),
                               y: axis('attempts', { beginAtZero: true, ticks: { precision: 0 } }) },
                             false) };
    },
    reasons: function (d) {
      var r = d.reasons;
      var opts = base({ x: axis('attempts', { beginAtZero: true, ticks: { precision: 0 } }),
                        y: { ticks: { autoSkip: false, font: { size: 11 } } } }, false);
      opts.indexAxis = 'y';
      return { type: 'bar', data: { labels: r.labels, datasets: [{ label: 'attempts',
               data: r.counts, backgroundColor: r.outcomes.map(outcomeColor) }] }, options: opts };
    },
    progress_seq: function (d) { return progress(d.progress_by_candidate, 'candidate (seq)'); },
    progress_time: function (d) { return progress(d.progress_by_time, 'seconds since the run started'); },
    spend: function (d) {
      var pts = d.spend;
      return { type: 'scatter', data: { datasets: [
                 line('cost (USD)', pts.map(function (p) { return { x: p.t, y: p.cost }; }),
                      palette[0], { stepped: hold, yAxisID: 'y' }),
                 line('tokens (input + output)', pts.map(function (p) { return { x: p.t, y: p.tokens }; }),
                      palette[4], { stepped: hold, yAxisID: 'y1' })] },
               options: base({ x: axis('seconds since the run started', { min: 0 }),
                               y: axis('USD', { beginAtZero: true, position: 'left' }),
                               y1: axis('tokens', { beginAtZero: true, position: 'right',
                                                    grid: { drawOnChartArea: false } }) }) };
    }
  };
  function progress(series, xTitle) {
    return { type: 'scatter', data: { datasets: series.map(function (s, i) {
               return line(s.label, s.points, palette[i % palette.length], { stepped: hold,
                           pointRadius: 2, pointStyle: 'circle' }); }) },
             options: base({ x: axis(xTitle), y: axis('best speedup so far', { beginAtZero: true }) }) };
  }
  function inkIn(canvas, x, y, w, h) {
    if (w <= 0 || h <= 0) return 0;
    var px = canvas.getContext('2d').getImageData(x, y, w, h).data;
    var n = 0;
    for (var i = 3; i < px.length; i += 4) if (px[i] !== 0) n++;
    return n;
  }
  function inkedPixels(canvas) { return inkIn(canvas, 0, 0, canvas.width, canvas.height); }
  // Ink in the canvas's outermost 2 pixels: a label or mark cut off at the edge.
  function edgeInk(canvas) {
    var w = canvas.width, h = canvas.height;
    return inkIn(canvas, 0, 0, 2, h) + inkIn(canvas, w - 2, 0, 2, h) +
           inkIn(canvas, 2, 0, w - 4, 2) + inkIn(canvas, 2, h - 2, w - 4, 2);
  }
  // How unlike two drawn legend swatches are: the mean RGBA difference over
  // the pixels either one inked, 0 (the same) to 1, at the best of +-1 pixel
  // shifts (the same mark drawn at another sub-pixel offset is the same).
  function swatchDifference(a, b) {
    var best = 1;
    for (var dy = -1; dy <= 1; dy++) for (var dx = -1; dx <= 1; dx++) {
      var diff = 0, ink = 0;
      for (var y = 1; y < a.height - 1; y++) for (var x = 1; x < a.width - 1; x++) {
        var i = 4 * (y * a.width + x), j = 4 * ((y + dy) * b.width + x + dx);
        if (!a.data[i + 3] && !b.data[j + 3]) continue;
        ink++;
        for (var k = 0; k < 4; k++) diff += Math.abs(a.data[i + k] - b.data[j + k]);
      }
      if (ink) best = Math.min(best, diff / (ink * 4 * 255));
    }
    return best;
  }
  // The legend's swatches as drawn on the canvas, and the least difference
  // between two of them (null without a legend of two or more entries).
  function legendSwatches(chart) {
    var legend = chart.legend, boxes = legend && legend.legendHitBoxes;
    if (!legend.options.display || !boxes || boxes.length < 2) return null;
    var o = legend.options.labels, size = Chart.helpers.toFont(o.font).size;
    var w = o.usePointStyle ? (o.pointStyleWidth || Math.min(o.boxWidth, size)) : o.boxWidth;
    var r = chart.currentDevicePixelRatio, m = 3;
    var crops = boxes.map(function (b) {
      return chart.ctx.getImageData(Math.round(b.left * r) - m, Math.round(b.top * r) - m,
                                    Math.round(w * r) + 2 * m, Math.round(b.height * r) + 2 * m);
    });
    var least = 1;
    for (var a = 0; a < crops.length; a++)
      for (var b = a + 1; b < crops.length; b++)
        least = Math.min(least, swatchDifference(crops[a], crops[b]));
    return { items: crops.length, least: least };
  }
  // Where KernelBench's thresholds 0.5 to 2 lie across the fast_p plot: the
  // share of the plot area's width between the first and the last.
  function thresholdSpread(chart) {
    var x = chart.scales.x, area = chart.chartArea;
    return (x.getPixelForValue(2) - x.getPixelForValue(0.5)) / (area.right - area.left);
  }
  // Whether the first series (fast_p's eager curve) is drawn where its data
  // says: at the middle of each step wide enough to look at, away from the
  // markers, the series' colour at the step's height. A step drawn on the
  // wrong side of its point is not there.
  function stepsOffCurve(chart) {
    var x = chart.scales.x, y = chart.scales.y, set = chart.data.datasets[0];
    var pts = set.data, r = chart.currentDevicePixelRatio;
    var want = [1, 3, 5].map(function (k) { return parseInt(set.borderColor.substr(k, 2), 16); });
    var markers = chart.data.datasets[1].data.map(function (m) { return x.getPixelForValue(m.x); });
    var checked = 0, off = 0;
    for (var i = 0; i + 1 < pts.length; i++) {
      var x0 = x.getPixelForValue(pts[i].x), x1 = x.getPixelForValue(pts[i + 1].x), xm = (x0 + x1) / 2;
      if (x1 - x0 < 8 || markers.some(function (mx) { return Math.abs(mx - xm) < 10; })) continue;
      var px = chart.ctx.getImageData(Math.round(xm * r), Math.round(y.getPixelForValue(pts[i].y) * r) - 2,
                                      1, 5).data;
      var hit = false;
      for (var k = 0; k < px.length; k += 4)
        hit = hit || (px[k + 3] > 200 && Math.abs(px[k] - want[0]) + Math.abs(px[k + 1] - want[1]) +
                                         Math.abs(px[k + 2] - want[2]) < 90);
      checked++;
      if (!hit) off++;
    }
    return { checked: checked, off: off };
  }
  // What the page says about each drawn plot, on its canvas, for tests.
  function recordChecks(c, chart) {
    c.setAttribute('data-edge-ink', String(edgeInk(c)));
    var legend = legendSwatches(chart);
    if (legend) {
      c.setAttribute('data-legend-items', String(legend.items));
      c.setAttribute('data-legend-least-difference', legend.least.toFixed(3));
    }
    if (c.getAttribute('data-chart') !== 'fastp') return;
    c.setAttribute('data-threshold-spread', thresholdSpread(chart).toFixed(3));
    var steps = stepsOffCurve(chart);
    c.setAttribute('data-steps-checked', String(steps.checked));
    c.setAttribute('data-steps-off-curve', String(steps.off));
  }
  var canvases = document.querySelectorAll('canvas[data-chart]');
  var drawn = 0;
  for (var i = 0; i < canvases.length; i++) {
    var c = canvases[i];
    try {
      var chart = new Chart(c, builders[c.getAttribute('data-chart')](data));
      var ink = inkedPixels(c);
      c.setAttribute('data-drawn-pixels', String(ink));
      recordChecks(c, chart);
      if (c.width > 0 && c.height > 0 && ink > 0) drawn++;
    } catch (e) {
      window.dispatchEvent(new ErrorEvent('error', { message: c.getAttribute('data-chart') + ': ' + e }));
    }
  }
  document.documentElement.setAttribute('data-charts-expected', String(canvases.length));
  document.documentElement.setAttribute('data-charts-rendered', String(drawn));
})();
)js";

}  // namespace hone
