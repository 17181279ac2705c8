#include "cli/context.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/json_text.h"

namespace hone::cli {

Status CheckOutputFile(const std::string& output) {
  if (output.empty()) return Status::Ok();
  std::filesystem::path parent = std::filesystem::path(output).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    return Status::Invalid("-o " + output + ": the folder " + parent.string() + " does not exist");
  if (std::filesystem::is_directory(output, ec))
    return Status::Invalid("-o " + output + ": is a folder; name the file to write");
  return Status::Ok();
}

namespace {
bool json_errors = false;
}  // namespace

void JsonErrors(bool on) { json_errors = on; }

std::string JsonErrorObject(const std::string& message, int exit_code) {
  return JsonText(nlohmann::json{{"error", message}, {"exit_code", exit_code}});
}

int ReportError(const Status& st) {
  std::fprintf(stderr, "hone: %s\n", st.message().c_str());
  int code = st.code() == StatusCode::kInvalidInput ? kExitUsage : kExitFailure;
  if (json_errors) std::printf("%s\n", JsonErrorObject(st.message(), code).c_str());
  std::fflush(stdout);
  return code;
}

Progress::Progress(const Output& out)
    : enabled_(out.terminal && !out.quiet && !out.json), lines_(!out.quiet && !out.json) {
  if (const char* after = std::getenv("HONE_PROGRESS_AFTER"); after && *after)
    slow_seconds_ = std::max(0, std::atoi(after));
  if (lines_ && !enabled_) ticker_ = std::thread([this] { Tick(); });
  if (out.log_file.empty()) return;
  log_ = std::fopen(out.log_file.c_str(), "a");
  if (!log_)
    std::fprintf(stderr, "hone: warning: --log %s: cannot open: %s\n", out.log_file.c_str(),
                 std::strerror(errno));
}

void Progress::Log(const std::string& line) {
  if (!log_ || line == last_logged_) return;
  last_logged_ = line;
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  std::fprintf(log_, "%s %s\n", stamp, line.c_str());
  std::fflush(log_);
}

void Progress::Note(const std::string& line) { Log(line); }

void Progress::Line(const std::string& line) {
  Log(line);
  if (!lines_) return;
  Clear();
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::Tick() {
  using namespace std::chrono;
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, seconds(1), [this] { return stop_; })) {
    if (current_.empty()) continue;
    auto now = steady_clock::now();
    if (now - since_ < seconds(slow_seconds_)) continue;
    if (said_ && now - said_at_ < seconds(kSlowStageRepeatSeconds)) continue;
    std::fprintf(stderr, "%s (%.0f s so far)\n", current_.c_str(),
                 duration<double>(now - since_).count());
    std::fflush(stderr);
    said_ = true;
    said_at_ = now;
  }
}

void Progress::Show(const std::string& line) {
  Log(line);
  if (ticker_.joinable()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (line != current_) {
      current_ = line;
      since_ = std::chrono::steady_clock::now();
      said_ = false;
    }
  }
  if (!enabled_) return;
  std::fprintf(stderr, "\r\033[K%s", line.substr(0, 120).c_str());
  std::fflush(stderr);
  shown_ = true;
}

Progress::~Progress() {
  Clear();
  if (ticker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_one();
    ticker_.join();
  }
  if (log_) std::fclose(log_);
}

void Progress::Clear() {
  if (ticker_.joinable()) {
    std::lock_guard<std::mutex> lock(mu_);
    current_.clear();
  }
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace hone::cli
