// Kills a `hone` run started with SpawnHone once its store holds `at_least`
// finished evaluations of run 1 (or after a minute), for the tests that
// resume a run killed mid-way.
#pragma once

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "store/store.h"

namespace hone::testing {

// Returns waitpid's status of the killed process group's leader, or of the
// leader as it exited on its own before that (at once: a run that failed
// early is not waited for a minute).
inline int KillOnceEvaluated(pid_t pid, const std::filesystem::path& db, int at_least = 2) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    if (!std::filesystem::exists(db)) continue;
    auto store = Store::Open(db);
    if (!store.ok()) continue;
    auto counts = (*store)->StatusCounts(1);
    int finished = 0;
    if (counts.ok())
      for (const auto& [status, n] : *counts) finished += status == "pending" ? 0 : n;
    if (finished >= at_least) break;
  }
  kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

}  // namespace hone::testing
