// `hone serve`: the HTTP front of the evaluation service. It validates and
// queues; it never evaluates in its own process (workers do, serve/worker.h).
// Routes: native_api.h, openrlhf_shim.h, kernelgym_shim.h.
//
// Guards: it binds to loopback unless told otherwise, and then a bearer
// token is required (Start refuses to bind without one); bodies over
// max_body_bytes are refused (413); one client address has at most
// max_inflight_per_client requests at once (429 with Retry-After); a full
// queue answers 429 and a queue that cannot be reached 503, both with
// Retry-After. Every request is counted in the metrics.
//
// Start binds and serves on its own thread; Stop (or the destructor) ends
// it and waits. Thread-safe otherwise.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "serve/http_listener.h"
#include "serve/serve_context.h"

namespace hone {

class HttpService {
 public:
  HttpService(ServeOptions options, JobQueueFactory factory);
  ~HttpService();
  HttpService(const HttpService&) = delete;
  HttpService& operator=(const HttpService&) = delete;

  // Status::Invalid: options that are not safe (off loopback without a
  // token); Status::Unavailable: the address cannot be bound, another
  // process's listening socket on the port included (the socket is never
  // SO_REUSEPORT, so no second server shares a port and its traffic).
  Status Start();
  void Stop();
  int port() const { return listener_.port(); }
  ServeMetrics& metrics() { return metrics_; }

 private:
  bool Admit(const httplib::Request& req, httplib::Response& res);
  void Release(const httplib::Request& req);

  ServeOptions options_;
  QueuePool queues_;
  ServeMetrics metrics_;
  ServeContext ctx_{options_, queues_, metrics_};
  httplib::Server server_;
  HttpListener listener_{server_};  // after server_: stopped before it goes
  std::mutex mu_;
  std::map<std::string, int> inflight_;  // by client address
};

// Whether `host` is a loopback address: an IPv4 address in 127.0.0.0/8,
// the IPv6 address ::1 (bracketed or not), or exactly "localhost" (any
// case). A name that merely begins with "127." ("127.attacker.com") is not.
bool IsLoopback(const std::string& host);

// The host of an HTTP authority, as a Host header gives it
// ("localhost:8080" -> "localhost", "[::1]:80" -> "::1").
std::string HostOfAuthority(const std::string& authority);

// The host of an Origin header ("http://localhost:3000" -> "localhost");
// "" for "null" or an origin without one.
std::string HostOfOrigin(const std::string& origin);

}  // namespace hone
