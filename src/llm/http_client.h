// HTTP POST for the LLM providers, over libcurl.
//
// Every outcome is a value: an HTTP status with its body and headers, or a
// transport error (refused, dropped connection, timeout) with status 0.
// Thread-safe: each Post uses its own curl handle, so callers may post from
// many threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hone {

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  std::string body;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // the whole exchange
  // When set and true (from any thread), the exchange is abandoned within
  // about a second: a transport error with `cancelled`. Not owned.
  const std::atomic<bool>* cancel = nullptr;
};

struct HttpResponse {
  int status = 0;  // 0: no HTTP response (see transport_error)
  std::string body;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string transport_error;                 // non-empty when status is 0
  bool timed_out = false;
  bool cancelled = false;  // HttpRequest::cancel was set
  double seconds = 0;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual HttpResponse Post(const HttpRequest& request) = 0;
};

// libcurl's easy interface; curl_global_init runs once, on first use.
std::unique_ptr<HttpClient> MakeCurlHttpClient();

}  // namespace hone
