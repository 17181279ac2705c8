#include "serve/http_listener.h"

#include <httplib.h>
#include <strings.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <fstream>

#include "serve/http_service.h"

namespace hone {

Status HttpListener::Start(const ListenerOptions& o) {
  if (!IsLoopback(o.host) && o.token.empty())
    return Status::Invalid(o.host_flag + " " + o.host + " is not loopback: give a bearer token (" +
                           o.token_from + ")");
  const int threads = o.threads;
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_.set_payload_max_length(o.max_body_bytes);
  // cpp-httplib's default socket options set SO_REUSEPORT: a second server
  // on the port would bind too and take every other request (a stranger's
  // process could take a client's traffic). SO_REUSEADDR alone lets a
  // restarted server bind at once and refuses a port someone listens on.
  // cpp-httplib tries the host's addresses in turn and stops at the first
  // that binds: the last socket seen here is the one that listens.
  server_.set_socket_options([this](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd_ = sock;
  });
  errno = 0;
  port_ = o.port == 0 ? server_.bind_to_any_port(o.host)
                      : (server_.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port_ <= 0)
    return Status::Unavailable("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                               (errno == EADDRINUSE ? ": the port is in use" : ""));
  // cpp-httplib listens with a backlog of 5; listening again sets another.
  if (o.backlog > 0 && listen_fd_ >= 0) ::listen(listen_fd_, o.backlog);
  ended_ = false;
  thread_ = std::thread([this] {
    server_.listen_after_bind();
    ended_ = true;
  });
  // cpp-httplib's stop() does nothing until the thread has begun listening
  // (and Stop's join would then wait forever): return once it has.
  while (!server_.is_running() && !ended_)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return Status::Ok();
}

void HttpListener::Stop() {
  if (!thread_.joinable()) return;
  server_.stop();
  thread_.join();
}

bool BearerTokenMatches(const std::string& authorization, const std::string& token) {
  constexpr size_t kScheme = 7;  // "Bearer "
  if (token.empty() || authorization.size() < kScheme ||
      strncasecmp(authorization.c_str(), "Bearer ", kScheme) != 0)
    return false;
  const std::string given = authorization.substr(kScheme);
  unsigned char diff = given.size() != token.size();
  for (size_t i = 0; i < given.size() && i < token.size(); ++i)
    diff |= static_cast<unsigned char>(given[i] ^ token[i]);
  return diff == 0;
}

Result<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (in && std::getline(in, token) && !token.empty() && token.back() == '\r') token.pop_back();
  if (token.empty()) return Status::Invalid(path + ": no token in it");
  return token;
}

std::string HttpUrl(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace hone
