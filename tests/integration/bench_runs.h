// What the tests of `hone bench` runs share (bench_resume_test,
// bench_lanes_test, tests/gpu/multi_gpu_bench_test): the JSON document in a
// run's output, the finished units in its store, and a run killed when it
// outlives a deadline. Test-only; gtest assertions report failures.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/fs.h"
#include "store/store.h"
#include "support/source_dir.h"

namespace hone::testing {

// The JSON document in hone's output (stderr may be interleaved before it).
inline nlohmann::json JsonIn(const std::string& out) {
  size_t begin = out.rfind("\n{\n") != std::string::npos && out.rfind("{\n", 0) != 0
                     ? out.find("\n{\n") + 1
                     : 0;
  size_t end = out.rfind("\n}");
  return nlohmann::json::parse(
      out.substr(begin, end == std::string::npos ? out.size() : end + 2 - begin));
}

// work key -> when it finished, for every finished unit of run 1 in `db`.
inline std::map<std::string, std::string> FinishedUnits(const std::filesystem::path& db) {
  auto store = Store::Open(db);
  EXPECT_TRUE(store.ok()) << store.status().message();
  std::map<std::string, std::string> out;
  if (!store.ok()) return out;
  auto rows = (*store)->RunCandidates(1);
  EXPECT_TRUE(rows.ok());
  if (!rows.ok()) return out;
  for (const auto& r : *rows)
    if (r.evaluation && r.evaluation->state == "finished")
      out[r.evaluation->work_key] = r.evaluation->finished;
  return out;
}

// Waits up to `seconds` for `pid` (a process group leader, SpawnHone); kills
// the group when it is still running. True when the run ended by itself
// (and then it must have exited 0).
inline bool RunOrKill(pid_t pid, double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return false;
}

// One number `sql` asks of `db`, read-only: 0 when it does not exist yet
// or cannot answer (hone may be creating it).
inline int64_t CountIn(const std::filesystem::path& db, const char* sql) {
  std::error_code ec;
  if (!std::filesystem::exists(db, ec)) return 0;
  sqlite3* raw = nullptr;
  int64_t n = 0;
  if (sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(raw, 1000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(raw, sql, -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(raw);
  return n;
}

// Whether `db` holds run 1: a bench killed before it recorded its run has
// nothing to resume, and starts again.
inline bool HasRun(const std::filesystem::path& db) {
  return CountIn(db, "SELECT count(*) FROM runs WHERE id = 1") > 0;
}

// How many units of run 1 in `db` have finished.
inline size_t FinishedCount(const std::filesystem::path& db) {
  return static_cast<size_t>(
      CountIn(db, "SELECT count(*) FROM evaluations WHERE run_id = 1 AND state = 'finished'"));
}

// Waits for `pid` (a process group leader, SpawnHone) until at least
// `units` units of run 1 in `db` have finished, then `delay` seconds more,
// and kills the group if it is still running. True when the run ended by
// itself (and then it must have exited 0). Kill points follow the run's
// progress, not a wall-clock estimate: on a machine of any speed, and
// whatever earlier runs left warm, the kill lands mid-run.
inline bool RunUntilUnitsThenKill(pid_t pid, const std::filesystem::path& db, size_t units,
                                  double delay) {
  using Clock = std::chrono::steady_clock;
  const auto give_up = Clock::now() + std::chrono::minutes(10);
  std::optional<Clock::time_point> kill_at;
  while (Clock::now() < give_up) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
      return true;
    }
    if (!kill_at && FinishedCount(db) >= units)
      kill_at = Clock::now() +
                std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(delay));
    if (kill_at && Clock::now() >= *kill_at) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return false;
}

// Copies example tasks (tasks/examples/NAME) into `suite` with their CPU
// main case cut to a few thousand elements. For tests of what a bench does
// with its units (lanes, resume, kills), where the full sizes only cost
// verification: about 1.5 s of hone's CPU a unit on a 2-core machine
// against about 0.1 s. Their other cases (odd and tiny sizes) stay. A fatal
// failure when an example no longer has the case it cuts (callers wrap it
// in ASSERT_NO_FATAL_FAILURE).
inline void CopySmallExamples(const std::filesystem::path& suite,
                              const std::vector<std::string>& names) {
  struct Cut {
    const char *task, *main_case, *small;
  };
  static const Cut kCuts[] = {{"gelu", "N = 524288\n", "N = 4099\n"},
                              {"row_sum", "R = 8192\nN = 1024\n", "R = 61\nN = 1024\n"},
                              {"softmax", "B = 2048\nN = 1024\n", "B = 29\nN = 1024\n"}};
  for (const std::string& name : names) {
    const std::filesystem::path to = suite / name;
    std::filesystem::copy(SourceDir() / "tasks/examples" / name, to,
                          std::filesystem::copy_options::recursive);
    const Cut* cut = nullptr;
    for (const Cut& c : kCuts)
      if (name == c.task) cut = &c;
    ASSERT_NE(cut, nullptr) << "no small main case is known for the example " << name;
    std::string toml = ReadFile(to / "task.toml").value();
    const size_t at = toml.find(cut->main_case);
    ASSERT_NE(at, std::string::npos) << name << "'s task.toml has no case " << cut->main_case;
    toml.replace(at, std::string(cut->main_case).size(), cut->small);
    ASSERT_TRUE(WriteFileAtomic(to / "task.toml", toml).ok());
  }
}

}  // namespace hone::testing
