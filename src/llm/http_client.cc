#include "llm/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace hone {
namespace {

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string Trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

size_t AppendBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

// Called once per header line, including each status line: a new status line
// (after a 100 Continue, say) starts a fresh set of headers.
int AbortWhenCancelled(void* cancel, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* flag = static_cast<const std::atomic<bool>*>(cancel);
  return flag && flag->load() ? 1 : 0;
}

size_t AppendHeader(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
    return size * n;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return size * n;
  std::string name = Lower(Trim(line.substr(0, colon)));
  std::string value = Trim(line.substr(colon + 1));
  auto [it, inserted] = headers->emplace(name, value);
  if (!inserted) it->second += ", " + value;  // repeated headers, as HTTP folds them
  return size * n;
}

// Owns one easy handle and its header list for the length of one Post.
class CurlExchange {
 public:
  CurlExchange() : curl_(curl_easy_init()) {}
  ~CurlExchange() {
    curl_slist_free_all(headers_);
    if (curl_) curl_easy_cleanup(curl_);
  }
  CurlExchange(const CurlExchange&) = delete;
  CurlExchange& operator=(const CurlExchange&) = delete;

  HttpResponse Run(const HttpRequest& request);

 private:
  void Configure(const HttpRequest& request, HttpResponse& response);

  CURL* curl_;
  curl_slist* headers_ = nullptr;
  char error_[CURL_ERROR_SIZE] = {};
};

void CurlExchange::Configure(const HttpRequest& request, HttpResponse& response) {
  for (const auto& [name, value] : request.headers) {
    headers_ = curl_slist_append(headers_, (name + ": " + value).c_str());
  }
  // No "Expect: 100-continue" round trip before large bodies.
  headers_ = curl_slist_append(headers_, "Expect:");
  curl_easy_setopt(curl_, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl_, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl_, CURLOPT_POST, 1L);
  curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
  curl_easy_setopt(curl_, CURLOPT_USERAGENT, "hone/" HONE_VERSION);
  curl_easy_setopt(curl_, CURLOPT_ACCEPT_ENCODING, "");  // whatever curl can decode
  curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);         // many threads; no SIGALRM
  curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, error_);
  curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl_, CURLOPT_HEADERFUNCTION, AppendHeader);
  curl_easy_setopt(curl_, CURLOPT_HEADERDATA, &response.headers);
  // Called about once a second while the transfer runs (and on progress).
  curl_easy_setopt(curl_, CURLOPT_NOPROGRESS, request.cancel ? 0L : 1L);
  curl_easy_setopt(curl_, CURLOPT_XFERINFOFUNCTION, AbortWhenCancelled);
  curl_easy_setopt(curl_, CURLOPT_XFERINFODATA, request.cancel);
}

HttpResponse CurlExchange::Run(const HttpRequest& request) {
  HttpResponse response;
  if (!curl_) {
    response.transport_error = "curl_easy_init failed";
    return response;
  }
  Configure(request, response);
  auto start = std::chrono::steady_clock::now();
  CURLcode code = curl_easy_perform(curl_);
  response.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (code != CURLE_OK) {
    // A reply cut short is no reply: status 0, with what did arrive kept.
    response.status = 0;
    response.timed_out = code == CURLE_OPERATION_TIMEDOUT;
    response.cancelled = code == CURLE_ABORTED_BY_CALLBACK;
    response.transport_error = curl_easy_strerror(code);
    if (error_[0] != '\0') response.transport_error += std::string(": ") + error_;
    return response;
  }
  long status = 0;
  curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

class CurlHttpClient : public HttpClient {
 public:
  CurlHttpClient() { GlobalInitOnce(); }
  HttpResponse Post(const HttpRequest& request) override {
    CurlExchange exchange;
    return exchange.Run(request);
  }
};

}  // namespace

std::unique_ptr<HttpClient> MakeCurlHttpClient() { return std::make_unique<CurlHttpClient>(); }

}  // namespace hone
