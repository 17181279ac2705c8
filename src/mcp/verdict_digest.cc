#include "mcp/verdict_digest.h"

#include <fmt/format.h>

#include <sstream>

#include "report/verdict_text.h"

namespace hone::mcp {
namespace {

constexpr int kCompilerLines = 8;
constexpr size_t kNotes = 3;
constexpr double kNearLight = 70;  // % of speed of light worth calling "near"

// The compiler's error lines first (what the agent must fix), else the
// log's first lines; those the reason already quotes are not said twice.
std::string CompilerExcerpt(const std::string& log, const std::string& reason) {
  std::istringstream in(log);
  std::string line, errors, head;
  int n_errors = 0, n_head = 0;
  while (std::getline(in, line)) {
    if (line.empty() || reason.find(line) != std::string::npos) continue;
    if (n_head < kCompilerLines) head += "  " + line + "\n", ++n_head;
    if (n_errors < kCompilerLines && line.find("error") != std::string::npos)
      errors += "  " + line + "\n", ++n_errors;
  }
  return errors.empty() ? head : errors;
}

const Check* FirstFailed(const Verdict& v) {
  for (const Check& c : v.checks)
    if (!c.passed) return &c;
  return nullptr;
}

bool Timed(const Verdict& v) { return v.timing.candidate_time && v.timing.reference_time; }

}  // namespace

std::string LimitLine(const Verdict& v) {
  if (v.profile && v.profile->ran()) {
    std::string line = "limited by: " + v.profile->diagnosis.label;
    if (!v.profile->diagnosis.fix.empty()) line += "; likely fix: " + v.profile->diagnosis.fix;
    return line;
  }
  if (!Timed(v) || v.timing.sol_seconds <= 0) return "";
  if (v.timing.sol_percent >= kNearLight)
    return fmt::format("limits: near the speed of light ({:.0f}%): little left to gain",
                       v.timing.sol_percent);
  return fmt::format(
      "limits: {:.0f}% of the speed of light; call the profile tool for what limits it",
      v.timing.sol_percent);
}

std::string VerdictDigest(const Verdict& v) {
  std::string out = fmt::format("{}: {}\n", StatusName(v.status), v.reason);
  if (Timed(v)) {
    out += fmt::format("speedup {:.2f}x over {} [{:.2f}x .. {:.2f}x]", v.timing.speedup,
                       v.timing.baseline, v.timing.speedup_low, v.timing.speedup_high);
    out += fmt::format("; candidate {} median",
                       FormatSeconds(v.timing.candidate_time->summary.median));
    if (v.timing.sol_seconds > 0)
      out += fmt::format("; {:.1f}% of the speed of light ({})", v.timing.sol_percent,
                         FormatSeconds(v.timing.sol_seconds));
    out += "\n";
  }
  if (std::string limit = LimitLine(v); !limit.empty()) out += limit + "\n";
  if (v.status == VerdictStatus::kCompileError)
    if (std::string excerpt = CompilerExcerpt(v.build.log, v.reason); !excerpt.empty())
      out += "compiler:\n" + excerpt;
  if (const Check* c = FirstFailed(v); c && v.reason.find(c->detail) == std::string::npos)
    out += fmt::format("failed check: {}{}: {}\n", c->name(),
                       c->where.empty() ? "" : " (" + c->where + ")", c->detail);
  for (size_t i = 0; i < v.notes.size() && i < kNotes; ++i)
    out += "note: " + v.notes[i].text + "\n";
  return out;
}

nlohmann::json VerdictSummaryJson(const Verdict& v) {
  nlohmann::json j = {{"status", StatusName(v.status)}, {"reason", v.reason}};
  if (Timed(v)) {
    j["speedup"] = v.timing.speedup;
    if (v.timing.sol_seconds > 0) j["sol_percent"] = v.timing.sol_percent;
  }
  if (std::string limit = LimitLine(v); !limit.empty()) j["limits"] = limit;
  return j;
}

}  // namespace hone::mcp
