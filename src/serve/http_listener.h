// What `hone serve` (serve/http_service.h) and `hone mcp --http`
// (mcp/http_transport.h) share in listening with cpp-httplib: the refusal
// to bind off loopback without a bearer token, the worker threads, the cap
// on bodies, the socket options (SO_REUSEADDR, never SO_REUSEPORT: no
// second server shares a port and its traffic), binding (port 0: any free
// one; a port in use said so), the listen backlog and the listening thread;
// and the bearer token check both make of every request.
//
// HttpListener borrows the server (its routes and hooks set by the owner)
// and must be stopped before the server goes; not thread-safe (Start and
// Stop from the owner's thread).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <thread>

#include "core/status.h"

namespace httplib {
class Server;
}

namespace hone {

struct ListenerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  std::string token;
  int threads = 8;
  size_t max_body_bytes = size_t{16} << 20;
  int backlog = 0;  // 0: cpp-httplib's (5)
  // For the refusal off loopback: the flag that named the host ("--host")
  // and where a token comes from ("--token or HONE_SERVE_TOKEN").
  std::string host_flag = "--host";
  std::string token_from;
};

class HttpListener {
 public:
  explicit HttpListener(httplib::Server& server) : server_(server) {}
  ~HttpListener() { Stop(); }
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Status::Invalid: off loopback without a token; Status::Unavailable:
  // the address cannot be bound ("the port is in use" when it is). Ok once
  // the thread listens (Stop may follow at once).
  Status Start(const ListenerOptions& options);
  void Stop();
  int port() const { return port_; }

 private:
  httplib::Server& server_;
  std::thread thread_;
  int port_ = 0;
  int listen_fd_ = -1;              // the listening socket, once bound
  std::atomic<bool> ended_{false};  // the listening thread returned
};

// Whether an Authorization header carries `token` ("Bearer TOKEN", the
// scheme in any case), compared in constant time (a comparison that stops
// at the first difference tells the token's prefix by its timing).
bool BearerTokenMatches(const std::string& authorization, const std::string& token);

// The first line of a token file, without a trailing "\r" (a file written
// on Windows); Status::Invalid when it cannot be read or has none.
Result<std::string> ReadTokenFile(const std::string& path);

// "http://HOST:PORT", an IPv6 host in brackets.
std::string HttpUrl(const std::string& host, int port);

}  // namespace hone
