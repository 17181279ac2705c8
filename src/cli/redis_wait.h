// Waiting for Redis at start-up: it may come up after hone (a cluster's
// start, a Slurm allocation), so `serve` and `worker` try once a second up
// to --connect-timeout. The wait is said on stderr, once when it begins and
// then every 10 s, with why the last try failed, so that a minute of
// silence never looks like a hang.
//
// One thread (the command's).
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "core/status.h"

namespace hone::cli {

struct RedisWait {
  std::string who;         // "hone serve", "hone worker w1": what the lines start with
  std::string address;     // host:port, as given
  double timeout_seconds;  // --connect-timeout
  bool quiet = false;      // --quiet or --json: nothing said
};

// Calls try_once until it succeeds, fails other than Unavailable (returned
// at once), or the timeout passes (its last failure, prefixed "--redis: ").
// stop_within(d) waits up to d and says whether a stop signal came: then
// *stopped is set and Ok returned.
Status WaitForRedis(const RedisWait& w, const std::function<Status()>& try_once,
                    const std::function<bool(std::chrono::milliseconds)>& stop_within,
                    bool* stopped);

}  // namespace hone::cli
