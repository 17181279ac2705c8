// MCP over Streamable HTTP (specification 2025-06-18 and later), for an
// agent on another machine: one endpoint, /mcp. A POST carries one
// JSON-RPC message; a notification or response is answered 202, a request
// with its response as JSON, or, for tools/call, as a server-sent-event
// stream that carries the call's progress and log notifications and then
// its response. initialize begins a session (its id in the Mcp-Session-Id
// header, which every later request must carry: 400 without, 404 for one
// that ended); DELETE ends one. GET is 405: the server sends nothing
// outside a request's stream.
//
// Guards: it binds to loopback unless told otherwise, and then a bearer
// token is required (Start refuses to bind without one); with a token every
// request must carry it (Authorization: Bearer TOKEN; 401 otherwise). On
// loopback a browser page's request (an Origin header that is not
// loopback) and a request whose Host header names no loopback host (a name
// rebound to 127.0.0.1) are refused 403, against DNS rebinding.
//
// Start binds and serves on its own threads; Stop (or the destructor) ends
// every session (cancelling its calls) and waits. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"
#include "mcp/mcp_server.h"
#include "serve/http_listener.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace hone::mcp {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 0;       // 0: any free port (port() says which)
  std::string token;  // bearer token; required off loopback
  // A session no request used for this long, with no call in flight, ends
  // when a new one begins; at most max_sessions live at once (initialize
  // is refused 503 beyond).
  std::chrono::milliseconds session_idle = std::chrono::hours(1);
  size_t max_sessions = 64;
};

class HttpTransport {
 public:
  // `make_session` makes a new session's state (the server's tools over
  // the shared ToolEnv).
  HttpTransport(HttpOptions options, std::function<std::unique_ptr<McpSession>()> make_session);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Status::Invalid: off loopback without a token; Status::Unavailable:
  // the address cannot be bound.
  Status Start();
  void Stop();
  int port() const { return listener_.port(); }

 private:
  bool Admit(const httplib::Request& req, httplib::Response& res) const;
  void Post(const httplib::Request& req, httplib::Response& res);
  void Delete(const httplib::Request& req, httplib::Response& res);
  std::shared_ptr<McpSession> SessionOf(const httplib::Request& req, httplib::Response& res);

  const HttpOptions options_;
  std::function<std::unique_ptr<McpSession>()> make_session_;
  std::unique_ptr<httplib::Server> server_;
  HttpListener listener_;  // after server_: stopped before it goes
  struct LiveSession {
    std::shared_ptr<McpSession> session;
    std::chrono::steady_clock::time_point last_used;
  };
  // The sessions idle past options_.session_idle, taken out of sessions_
  // (mu_ held); the caller lets them go outside the lock (ending waits).
  std::vector<std::shared_ptr<McpSession>> TakeIdleSessions();
  // A new session's id, or "" (with the 503 sent) when there are too many.
  std::string AddSession(std::shared_ptr<McpSession> session, httplib::Response& res);

  std::mutex mu_;
  std::map<std::string, LiveSession> sessions_;  // by Mcp-Session-Id
};

}  // namespace hone::mcp
