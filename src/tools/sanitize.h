// compute-sanitizer over one call of a CUDA candidate: memcheck (accesses
// outside any tensor, misaligned ones, device-side errors), racecheck
// (shared-memory hazards) and initcheck (reads of memory nothing wrote), on
// the task's smallest case, in `hone-sandbox-cuda --standalone-tensor`
// (sandbox/cuda/standalone.h). That process is confined as every sandbox is
// before its candidate loads (network namespace, unprivileged user, Landlock,
// the base seccomp filter). The post-load filter (no file opens, no new
// executable memory) is not installed, because the tool's injected code
// shares the process. The tool itself runs as the worker's user, in a clean
// environment. memcheck gets --destroy-on-device-error kernel, and every
// tool gets --show-backtrace no: on the H100, a memcheck error otherwise
// hung the tool in this process.
//
// Never while timing: the evaluator runs it after verification (eval
// --sanitize), and bench and optimize on each task's new best. The tools
// run one after another; each is bounded by `timeout`. Expected failures
// (the tool missing, a crash, a timeout) are reported in the result, never
// thrown. Thread-safe (each call owns its processes and files).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tools/standalone_call.h"
#include "verify/verdict.h"

namespace hone {

struct SanitizeJob {
  std::filesystem::path compute_sanitizer;  // the tool's executable
  StandaloneCall call;
  std::vector<std::string> tools = {"memcheck", "racecheck", "initcheck"};
  // More of the tool's options, before the program (a kernel filter).
  std::vector<std::string> tool_args;
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
};

// How long one tool may run: HONE_SANITIZE_TIMEOUT seconds when set to a
// positive number, else 120 s.
std::chrono::milliseconds SanitizeToolTimeout();

// The tool's command line for one of the job's tools, up to the program it
// runs: memcheck pads every allocation by kMemcheckPaddingBytes, so an
// overrun of up to that many bytes is an access outside any allocation.
std::vector<std::string> SanitizerCommand(const SanitizeJob& job, const std::string& tool);

// Runs every tool of the job.
std::vector<Verdict::SanitizerTool> RunSanitizer(const SanitizeJob& job);

// One tool's output read back: the error count of its summary line and its
// first report ("Invalid __global__ write of size 4 bytes / at kernel+0x70").
// `exit_code` is the tool's: kSanitizerErrorExit when it found errors, the
// target's own otherwise.
Verdict::SanitizerTool ReadSanitizerOutput(const std::string& tool, const std::string& output,
                                           int exit_code, bool timed_out);

inline constexpr int kSanitizerErrorExit = 86;
// A Triton block of 1024 float32, or of 512 float64.
inline constexpr int kMemcheckPaddingBytes = 4096;

}  // namespace hone
