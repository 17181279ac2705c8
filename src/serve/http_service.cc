#include "serve/http_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <strings.h>

#include <chrono>

#include "serve/kernelgym_shim.h"
#include "serve/native_api.h"
#include "serve/openrlhf_shim.h"

namespace hone {

namespace {

using Clock = std::chrono::steady_clock;

// Connections the kernel queues before the server accepts them: a trainer's
// hundreds of concurrent clients connect at once.
constexpr int kListenBacklog = 1024;

// The request this handler thread is serving: cpp-httplib runs a request's
// hooks (pre-routing, handler, logger) on one thread, and the logger runs
// for every response, refused ones included.
struct RequestMark {
  Clock::time_point start;
  bool admitted = false;
};
thread_local RequestMark t_request;

// The route a request matched, for the metrics: its path without ids, and
// "other" for every path no route serves, so that random URLs cannot make
// series without bound.
std::string RouteOf(const httplib::Request& req) {
  const std::string& p = req.path;
  for (const char* prefix : {"/v1/evals/", "/status/", "/results/"})
    if (p.rfind(prefix, 0) == 0 && p.size() > std::char_traits<char>::length(prefix) &&
        p.find('/', std::char_traits<char>::length(prefix)) == std::string::npos)
      return std::string(prefix) + "{id}";
  for (const char* route :
       {"/v1/evals", "/v1/evals:get", "/healthz", "/metrics", "/get_reward", "/evaluate"})
    if (p == route) return p;
  return "other";
}

}  // namespace

bool IsLoopback(const std::string& host) {
  std::string h = host;
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (strcasecmp(h.c_str(), "localhost") == 0) return true;
  in_addr v4{};
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, h.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

std::string HostOfAuthority(const std::string& authority) {
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    return close == std::string::npos ? std::string() : authority.substr(1, close - 1);
  }
  return authority.substr(0, authority.find(':'));
}

std::string HostOfOrigin(const std::string& origin) {
  size_t start = origin.find("://");
  if (start == std::string::npos) return "";
  start += 3;
  return HostOfAuthority(origin.substr(start, origin.find_first_of("/?#", start) - start));
}

HttpService::HttpService(ServeOptions options, JobQueueFactory factory)
    : options_(std::move(options)), queues_(std::move(factory)) {
  HONE_CHECK(options_.languages != nullptr, "a server without its languages");
}

HttpService::~HttpService() { Stop(); }

bool HttpService::Admit(const httplib::Request& req, httplib::Response& res) {
  t_request = {Clock::now(), false};
  if (!options_.token.empty() &&
      !BearerTokenMatches(req.get_header_value("Authorization"), options_.token)) {
    SendError(res, 401, "a bearer token is required (Authorization: Bearer TOKEN)");
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  int& n = inflight_[req.remote_addr];
  if (n >= options_.max_inflight_per_client) {
    SendError(res, 429,
              "at most " + std::to_string(options_.max_inflight_per_client) +
                  " requests at once from one client");
    return false;
  }
  ++n;
  t_request.admitted = true;
  return true;
}

void HttpService::Release(const httplib::Request& req) {
  if (!t_request.admitted) return;
  t_request.admitted = false;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = inflight_.find(req.remote_addr);
  if (it != inflight_.end() && --it->second <= 0) inflight_.erase(it);
}

Status HttpService::Start() {
  server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return Admit(req, res) ? httplib::Server::HandlerResponse::Unhandled
                           : httplib::Server::HandlerResponse::Handled;
  });
  // The admission ends when the handler has answered, before the answer is
  // written: a client that has read its answer may send the next request at
  // once. The logger (after every response) releases what the post-routing
  // handler did not see (Release runs once per request) and counts it.
  server_.set_post_routing_handler(
      [this](const httplib::Request& req, httplib::Response&) { Release(req); });
  server_.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    Release(req);
    double s = std::chrono::duration<double>(Clock::now() - t_request.start).count();
    metrics_.Request(RouteOf(req), res.status, s);
  });
  // A request no route takes gets a JSON error naming the routes, as every
  // other refusal does, rather than an empty 404. Answers that already have
  // a body (the handlers' own errors) are left as they are.
  server_.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req,
                                                                    httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == 404)
      SendError(res, 404,
                "no route " + req.method + " " + req.path +
                    "; hone serve answers POST /v1/evals, POST /v1/evals:get, GET /v1/evals/ID, "
                    "DELETE /v1/evals/ID, "
                    "GET /healthz, GET /metrics, POST /get_reward (OpenRLHF), POST /evaluate, "
                    "GET /status/ID, GET /results/ID (KernelGYM); docs/SERVE.md");
    else
      SendError(res, res.status,
                "HTTP " + std::to_string(res.status) + " for " + req.method + " " + req.path);
    return httplib::Server::HandlerResponse::Handled;
  }));
  RegisterNativeApi(server_, ctx_);
  RegisterOpenRlhfShim(server_, ctx_);
  RegisterKernelGymShim(server_, ctx_);
  return listener_.Start({.host = options_.host,
                          .port = options_.port,
                          .token = options_.token,
                          .threads = options_.threads,
                          .max_body_bytes = options_.max_body_bytes,
                          // Hundreds of trainer connections arrive at once.
                          .backlog = kListenBacklog,
                          .token_from = "--token or HONE_SERVE_TOKEN"});
}

void HttpService::Stop() { listener_.Stop(); }

}  // namespace hone
