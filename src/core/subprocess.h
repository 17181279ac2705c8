// Runs a trusted helper program (a compiler) and captures its output.
//
// Not for candidate code: the sandbox has its own launcher in src/run/.
// Thread-safe (each call owns its pipes and child); expected failures (the
// program fails, times out, cannot start) come back in the result.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone {

struct CommandResult {
  int exit_code = -1;  // valid when term_signal == 0 and !timed_out
  int term_signal = 0;
  bool timed_out = false;
  std::string output;  // stdout and stderr interleaved, capped
  bool output_truncated = false;
  double seconds = 0;
  bool succeeded() const { return !timed_out && term_signal == 0 && exit_code == 0; }
};

struct CommandOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  size_t max_output_bytes = 1 << 20;
  std::string cwd;  // empty: inherit
};

// Fails (Status) only when the program cannot be started at all.
Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                 const CommandOptions& options = {});

// Shell-style quoting for display (logs, error messages).
std::string QuoteCommand(const std::vector<std::string>& argv);

// In a freshly forked child: execvp(argv[0], argv); if that fails, writes
// errno to err_fd (the parent reads it to say why) and exits with 127.
[[noreturn]] void ExecOrReportErrno(char* const* argv, int err_fd);
// In the parent, once the child has its copy: the errno ExecOrReportErrno
// wrote to `err_fd` when the exec failed, 0 when it succeeded (the pipe
// closed on exec). Closes `err_fd`.
int ExecErrnoOf(int err_fd);

}  // namespace hone
