// What every subcommand that evaluates needs: the backends this hone knows,
// the one a command runs on opened (its builder, measured machine and
// sandbox program), and the cache, set up once per invocation.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "lang/builtin.h"
#include "run/evaluator.h"
#include "session/eval_context.h"
#include "task/suite.h"

namespace hone::cli {

// Exit codes (docs/CLI.md).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // hone itself could not work (environment)
constexpr int kExitUsage = 2;    // bad usage or a malformed task

struct Output {
  bool json = false;
  bool quiet = false;
  bool terminal = false;  // stderr is a terminal: show progress
  std::string log_file;   // --log: progress and results appended here
};

// An -o FILE the command may write: empty (none), or a file in a folder
// that exists. hone creates no folders outside its own (run folders, the
// cache), so a mistyped path is refused before any work (exit 2).
Status CheckOutputFile(const std::string& output);

// Prints "hone: message" on stderr and maps the status to an exit code;
// after JsonErrors(true) (the command line has --json) it also prints
// {"error": message, "exit_code": N} on stdout, so a script that reads
// stdout as JSON gets an object on failure as on success. Main's thread.
int ReportError(const Status& st);
void JsonErrors(bool on);
// The JSON object ReportError prints: one line.
std::string JsonErrorObject(const std::string& message, int exit_code);

// A one-line progress indicator on stderr (a terminal only, not with
// --quiet or --json), erased when done; with --log every line shown and
// every Note also goes to the log file, timestamped. A log that cannot be
// opened is said once on stderr and then ignored.
//
// Where stderr is not a terminal (a CI log, a pipe), a line shown for
// kSlowStageSeconds or more is printed once as a line of its own, with its
// time so far, and again every kSlowStageRepeatSeconds while it lasts: a
// long build or load is never silent. A ticker thread of its own does
// that; the methods are called from one thread. $HONE_PROGRESS_AFTER (whole
// seconds) replaces kSlowStageSeconds.
inline constexpr int kSlowStageSeconds = 5;
inline constexpr int kSlowStageRepeatSeconds = 30;
class Progress {
 public:
  explicit Progress(const Output& out);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void Show(const std::string& line);
  // A line worth keeping (a result, a warning): to the log only.
  void Note(const std::string& line);
  // A line worth keeping that a person should see as it happens (an
  // attempt's outcome, a retry, a failure): on stderr whether or not it is
  // a terminal (not with --quiet or --json), and to the log.
  void Line(const std::string& line);
  void Clear();

 private:
  void Log(const std::string& line);
  void Tick();
  bool enabled_;
  bool lines_;
  bool shown_ = false;
  std::FILE* log_ = nullptr;
  std::string last_logged_;
  // The slow-stage ticker (not a terminal only).
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::string current_;  // the line shown now; empty after Clear
  std::chrono::steady_clock::time_point since_, said_at_;
  bool said_ = false;
  int slow_seconds_ = kSlowStageSeconds;
  std::thread ticker_;
};

}  // namespace hone::cli
