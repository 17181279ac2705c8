#include "report/verdict_text.h"

#include <fmt/format.h>

#include "core/json_text.h"
#include "verify/verdict_json.h"

namespace hone {

std::string FormatSeconds(double s) {
  if (s < 1e-3) return fmt::format("{:.2f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.2f} s", s);
}

std::string FormatVerdict(const Verdict& v, bool color) {
  const char* paint = "";
  const char* reset = color ? "\033[0m" : "";
  if (color) paint = v.status == VerdictStatus::kPassed ? "\033[1;32m" : "\033[1;31m";
  std::string out =
      fmt::format("{}{}{}  {} <- {}\n", paint, StatusName(v.status), reset, v.task, v.candidate);
  out += fmt::format("  reason: {}\n", v.reason);
  if (!v.shapes.empty()) out += "  shapes: " + v.shapes + "\n";
  if (v.timing.candidate_time && v.timing.reference_time) {
    const auto& c = v.timing.candidate_time->summary;
    const auto& r = v.timing.reference_time->summary;
    out += fmt::format("  timed case: {} (flush: {})\n", v.timing.timed_case, v.timing.flush_mode);
    out += fmt::format("  candidate: {} median [95% CI {} .. {}], {} reps, rse {:.2f}%\n",
                       FormatSeconds(c.median), FormatSeconds(c.ci_low), FormatSeconds(c.ci_high),
                       c.count, 100 * c.rse);
    out += fmt::format("  {}: {} median [95% CI {} .. {}], {} reps, rse {:.2f}%\n",
                       v.timing.baseline, FormatSeconds(r.median), FormatSeconds(r.ci_low),
                       FormatSeconds(r.ci_high), r.count, 100 * r.rse);
    if (v.timing.compile_time)
      out += fmt::format("  torch.compile: {} median, {} reps\n",
                         FormatSeconds(v.timing.compile_time->summary.median),
                         v.timing.compile_time->summary.count);
    else if (!v.timing.compile_unavailable.empty())
      out += "  torch.compile: unavailable (" + v.timing.compile_unavailable + ")\n";
    out += fmt::format("  speedup: {:.2f}x over {}", v.timing.speedup, v.timing.baseline);
    if (v.timing.compile_time)
      out += fmt::format(", {:.2f}x over torch.compile", v.timing.speedup_compile);
    if (v.timing.sol_seconds > 0)
      out += fmt::format("   speed of light: {} ({:.1f}% of it)",
                         FormatSeconds(v.timing.sol_seconds), v.timing.sol_percent);
    out += "\n";
    if (!v.timing.speedup_unresolved.empty())
      out += "  speedup not resolved: " + v.timing.speedup_unresolved +
             " (time it longer: --time-budget)\n";
  } else if (v.status == VerdictStatus::kPassed) {
    out += "  speedup: not timed\n";  // --no-time, or timing stopped (the notes say why)
  }
  if (v.timing.device_state) {
    const DeviceStateSummary& d = *v.timing.device_state;
    out +=
        fmt::format("  GPU: SM {}-{} MHz, memory {} MHz, up to {} C and {:.0f} W, throttle: {}\n",
                    d.sm_mhz_min, d.sm_mhz_max, d.mem_mhz, d.temp_c_max, d.power_w_max,
                    ThrottleReasonNames(d.throttle_reasons));
  }
  if (!v.build.resources.empty()) out += "  kernels (ptxas): " + v.build.resources;
  if (v.precision.bound > 0)
    out += fmt::format("  precision: rel. L2 error {:.2e} vs float64 (bound {:.2e})\n",
                       v.precision.error, v.precision.bound);
  if (!v.tuning.trials.empty()) {
    int passed = 0;
    for (const auto& t : v.tuning.trials) passed += t.status == VerdictStatus::kPassed;
    out += passed ? fmt::format("  tuned: {} (the fastest of {} variants; {} passed)\n",
                                v.tuning.params, v.tuning.trials.size(), passed)
                  : fmt::format("  tuning: none of {} variants passed; this is {}'s verdict\n",
                                v.tuning.trials.size(), v.tuning.params);
  }
  if (v.sanitizer)
    out += fmt::format("  compute-sanitizer{}: {} ({})\n",
                       v.sanitizer->case_label.empty() ? "" : " on " + v.sanitizer->case_label,
                       DescribeSanitizer(*v.sanitizer), FormatSeconds(v.sanitizer->seconds));
  if (v.profile) out += ProfileText(*v.profile);
  // The static lint is no check of what the candidate does: "1 passed" for
  // a file that never ran read as if it had been verified.
  int passed = 0, failed = 0;
  for (const Check& c : v.checks)
    if (c.kind() != CheckKind::kLint) (c.passed ? passed : failed) += 1;
  std::string checks = v.status == VerdictStatus::kCompileError
                           ? std::string("none run (it did not build)")
                           : fmt::format("{} passed, {} failed", passed, failed);
  out += fmt::format("  checks: {}; build {}{}; total {}\n", checks, FormatSeconds(v.build.seconds),
                     v.build.cached ? " (cached)" : "", FormatSeconds(v.total_seconds));
  for (const Note& n : v.notes) out += "  note: " + n.text + "\n";
  if (!v.sandbox.missing.empty()) out += "  sandbox: not in force: " + v.sandbox.missing + "\n";
  // The reason, notes and build output quote compilers and candidates,
  // whose bytes need not be UTF-8; a terminal is shown text that is.
  return ValidUtf8(out);
}

std::string ProfileText(const ProfileReport& p) {
  if (!p.ran()) return "  profile: not run: " + p.not_run + "\n";
  std::string out =
      fmt::format("  profile ({}, {}): {}\n", p.tool, FormatSeconds(p.seconds), p.diagnosis.label);
  for (const auto& e : p.diagnosis.evidence) out += "    " + e + "\n";
  if (!p.diagnosis.fix.empty()) out += "    likely fix: " + p.diagnosis.fix + "\n";
  for (size_t i = 0; i < p.kernels.size() && i < 3; ++i) {
    const ProfileKernel& k = p.kernels[i];
    auto at = [&](const char* m, const char* format) {
      auto it = k.metrics.find(m);
      return it == k.metrics.end() ? std::string("-")
                                   : fmt::format(fmt::runtime(format), it->second);
    };
    out += fmt::format("    kernel {} x{}: {} us, DRAM {}%, SM {}%\n", k.name, k.launches,
                       at(metric::kDuration, "{:.1f}"), at(metric::kDram, "{:.0f}"),
                       at(metric::kComputeSol, "{:.0f}"));
  }
  for (const auto& m : p.missing) out += "    not counted: " + m + "\n";
  return out;
}

std::string DescribeSanitizer(const Verdict::Sanitizer& s) {
  if (!s.not_run.empty()) return "not run: " + s.not_run;
  std::string text;
  for (const auto& t : s.tools) {
    if (!text.empty()) text += "; ";
    text += t.tool + ": ";
    if (!t.failure.empty() && t.errors == 0) {
      text += "did not finish (" + t.failure + ")";
      continue;
    }
    text += std::to_string(t.errors) + (t.errors == 1 ? " error" : " errors");
    if (!t.first.empty()) text += " (" + t.first + ")";
  }
  return text;
}

}  // namespace hone
