#include "cli/redis_wait.h"

#include <fmt/format.h>

#include <cstdio>

namespace hone::cli {

using Clock = std::chrono::steady_clock;

Status WaitForRedis(const RedisWait& w, const std::function<Status()>& try_once,
                    const std::function<bool(std::chrono::milliseconds)>& stop_within,
                    bool* stopped) {
  *stopped = false;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(int64_t(w.timeout_seconds * 1e3));
  auto next_word = start;
  while (true) {
    Status st = try_once();
    if (st.ok()) return st;
    if (st.code() != StatusCode::kUnavailable || Clock::now() >= deadline)
      return st.With("--redis: ");
    if (!w.quiet && Clock::now() >= next_word) {
      const double waited = std::chrono::duration<double>(Clock::now() - start).count();
      std::fprintf(stderr, "%s: waiting for Redis at %s (%.0f of %.0f s, --connect-timeout): %s\n",
                   w.who.c_str(), w.address.c_str(), waited, w.timeout_seconds,
                   st.message().c_str());
      next_word = Clock::now() + std::chrono::seconds(10);
    }
    if (stop_within(std::chrono::seconds(1))) {
      *stopped = true;
      return Status::Ok();
    }
  }
}

}  // namespace hone::cli
