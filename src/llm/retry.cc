#include "llm/retry.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace hone {
namespace {

// A non-negative decimal number, or nullopt ("12", "1.5"; not "12s").
std::optional<double> ParseNumber(const std::string& text) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])))) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> ParseHttpDate(const std::string& text, std::time_t now) {
  std::time_t when = curl_getdate(text.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  return std::max(0.0, std::difftime(when, now));
}

}  // namespace

bool IsRetryableStatus(int status) {
  return status == 408 || status == 409 || status == 425 || status == 429 ||
         (status >= 500 && status <= 599);
}

double BackoffSeconds(const RetryPolicy& policy, int attempt, double spread) {
  double delay = policy.base_delay_seconds * std::pow(2.0, std::max(0, attempt - 1));
  delay = std::min(policy.max_delay_seconds, delay);
  delay *= 1 + policy.jitter * std::clamp(spread, -1.0, 1.0);
  return std::max(0.0, delay);
}

std::optional<double> RetryAfterSeconds(const std::map<std::string, std::string>& headers,
                                        std::time_t now) {
  if (auto it = headers.find("retry-after-ms"); it != headers.end()) {
    if (auto ms = ParseNumber(it->second)) return *ms / 1000;
  }
  auto it = headers.find("retry-after");
  if (it == headers.end()) return std::nullopt;
  if (auto seconds = ParseNumber(it->second)) return seconds;
  return ParseHttpDate(it->second, now);
}

}  // namespace hone
