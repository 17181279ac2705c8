// When to retry an LLM call and how long to wait first. Pure functions;
// thread-safe.
#pragma once

#include <ctime>
#include <map>
#include <optional>
#include <string>

#include "llm/provider.h"

namespace hone {

// 408, 409, 425, 429 and every 5xx (529 "overloaded" included): worth
// another try. Other statuses (400, 401, 403, 404, ...) will not change.
bool IsRetryableStatus(int status);

// The wait before the retry that follows failed attempt `attempt` (1-based):
// min(max_delay, base * 2^(attempt-1)), spread by policy.jitter * `spread`,
// where `spread` is a random number in [-1, 1]. Never negative.
double BackoffSeconds(const RetryPolicy& policy, int attempt, double spread);

// The wait a server asked for in response headers (lower-case names):
// "retry-after-ms" (milliseconds), else "retry-after" as seconds or as an
// HTTP-date (counted from `now`; a date in the past reads as 0). nullopt
// when neither is present or readable.
std::optional<double> RetryAfterSeconds(const std::map<std::string, std::string>& headers,
                                        std::time_t now);

}  // namespace hone
