#include "tools/sanitize.h"

#include <cstdlib>
#include <regex>
#include <sstream>

#include "core/subprocess.h"
#include "tools/cuda_tools.h"

namespace hone {
namespace {

constexpr const char* kPrefix = "========= ";

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  size_t i = s.find_first_not_of(' ');
  return i == std::string::npos ? "" : s.substr(i);
}

// A report's headline: a prefixed line that is not indented, not the
// banner and not a summary.
bool IsHeadline(const std::string& body) {
  return !body.empty() && body[0] != ' ' && body != "COMPUTE-SANITIZER" &&
         !StartsWith(body, "ERROR SUMMARY") && !StartsWith(body, "RACECHECK SUMMARY") &&
         !StartsWith(body, "LEAK SUMMARY") && !StartsWith(body, "Target application returned");
}

}  // namespace

std::chrono::milliseconds SanitizeToolTimeout() {
  return ToolTimeout("HONE_SANITIZE_TIMEOUT", std::chrono::minutes(2));
}

Verdict::SanitizerTool ReadSanitizerOutput(const std::string& tool, const std::string& output,
                                           int exit_code, bool timed_out) {
  Verdict::SanitizerTool t;
  t.tool = tool;
  static const std::regex summary(R"(ERROR SUMMARY: (\d+) error)");
  static const std::regex race(R"(RACECHECK SUMMARY: .*\((\d+) error)");
  std::istringstream in(output);
  std::string line, sandbox_said;
  bool summarised = false, take_location = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, summary) || std::regex_search(line, m, race)) {
      t.errors = std::max(t.errors, std::atoi(m[1].str().c_str()));
      summarised = true;
      continue;
    }
    if (StartsWith(line, "hone-sandbox: ")) sandbox_said = Trim(line.substr(14));
    if (!StartsWith(line, kPrefix)) continue;
    std::string body = line.substr(std::string(kPrefix).size());
    if (take_location) {
      std::string at = Trim(body);
      if (StartsWith(at, "at ")) t.first += " / " + at;
      take_location = false;
    }
    if (t.first.empty() && IsHeadline(body)) {
      t.first = Trim(body);
      take_location = true;
    }
  }
  if (!summarised && exit_code == kSanitizerErrorExit) t.errors = std::max(1, t.errors);
  if (t.first.size() > 400) t.first = t.first.substr(0, 400) + "...";
  if (timed_out)
    t.failure = sandbox_said.empty() ? "timed out" : "timed out after: " + sandbox_said;
  else if (exit_code != 0 && exit_code != kSanitizerErrorExit)
    t.failure =
        sandbox_said.empty() ? "the call exited with " + std::to_string(exit_code) : sandbox_said;
  else if (!summarised)
    t.failure = "no summary in compute-sanitizer's output";
  return t;
}

std::vector<std::string> SanitizerCommand(const SanitizeJob& job, const std::string& tool) {
  // Measured on the H100: with a host backtrace, or with the whole context
  // destroyed, a memcheck error in the confined sandbox hangs the tool.
  std::vector<std::string> command = {job.compute_sanitizer.string(),
                                      "--tool",
                                      tool,
                                      "--error-exitcode",
                                      std::to_string(kSanitizerErrorExit),
                                      "--print-limit",
                                      "10",
                                      "--show-backtrace",
                                      "no"};
  if (tool == "memcheck") {
    command.insert(command.end(), {"--destroy-on-device-error", "kernel"});
    // Memcheck reports an access that falls in no allocation, and the
    // driver places allocations back to back: on the H200 a read 1 KiB past
    // a torch tensor (caching allocator off) landed in the next tensor and
    // memcheck found nothing; with padding after each allocation it is an
    // invalid read (tests/adversarial/compat/several_kernels_oob_read_*).
    command.insert(command.end(), {"--padding", std::to_string(kMemcheckPaddingBytes)});
  }
  command.insert(command.end(), job.tool_args.begin(), job.tool_args.end());
  return command;
}

std::vector<Verdict::SanitizerTool> RunSanitizer(const SanitizeJob& job) {
  std::vector<Verdict::SanitizerTool> out;
  for (const std::string& tool : job.tools) {
    // A clean environment, as every sandbox gets: nothing of the worker's
    // (API keys) reaches the candidate. The tool keeps its files in scratch.
    std::vector<std::string> argv = StandaloneEnvironment(job.call);
    std::vector<std::string> command = SanitizerCommand(job, tool);
    argv.insert(argv.end(), command.begin(), command.end());
    for (const auto& a : StandaloneCommand(job.call)) argv.push_back(a);
    CommandOptions opts;
    opts.timeout = job.timeout;
    opts.cwd = job.call.scratch.string();
    auto r = RunCommand(argv, opts);
    if (!r.ok()) {
      Verdict::SanitizerTool t;
      t.tool = tool;
      t.failure = r.status().message();
      out.push_back(t);
      continue;
    }
    Verdict::SanitizerTool t = ReadSanitizerOutput(
        tool, r->output, r->term_signal ? 128 + r->term_signal : r->exit_code, r->timed_out);
    t.seconds = r->seconds;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace hone
