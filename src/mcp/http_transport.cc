#include "mcp/http_transport.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <random>

#include "core/json_text.h"
#include "serve/http_listener.h"
#include "serve/http_service.h"

namespace hone::mcp {
namespace {

constexpr size_t kMaxBodyBytes = size_t{16} << 20;  // a candidate's source, with room
constexpr int kHttpThreads = 32;                    // each streaming call holds one while it runs

// The messages one request's handling sends, for its HTTP response.
class RequestStream {
 public:
  enum class Next { kMessage, kWaiting, kDone };
  void Send(const nlohmann::json& message) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(JsonText(message));
    changed_.notify_all();
  }
  void Finish() {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    changed_.notify_all();
  }
  // The only message of a request answered at once (not a call): sent as
  // plain JSON rather than as a stream.
  bool FinishedWithOne(std::string& message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!finished_ || queue_.size() != 1) return false;
    message = queue_.front();
    return true;
  }
  Next Take(std::string& message, std::chrono::milliseconds wait) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, wait, [this] { return finished_ || !queue_.empty(); });
    if (!queue_.empty()) {
      message = std::move(queue_.front());
      queue_.pop_front();
      return Next::kMessage;
    }
    return finished_ ? Next::kDone : Next::kWaiting;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::string> queue_;
  bool finished_ = false;
};

std::string NewSessionId() {
  std::random_device random;
  std::string id;
  for (int i = 0; i < 4; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", random());
    id += part;
  }
  return id;
}

void SendJsonError(httplib::Response& res, int http_status, int code, const std::string& why) {
  res.status = http_status;
  res.set_content(JsonText(RpcError(nullptr, code, why)), "application/json");
}

}  // namespace

HttpTransport::HttpTransport(HttpOptions options,
                             std::function<std::unique_ptr<McpSession>()> make_session)
    : options_(std::move(options)),
      make_session_(std::move(make_session)),
      server_(std::make_unique<httplib::Server>()),
      listener_(*server_) {}

HttpTransport::~HttpTransport() { Stop(); }

bool HttpTransport::Admit(const httplib::Request& req, httplib::Response& res) const {
  if (!options_.token.empty() &&
      !BearerTokenMatches(req.get_header_value("Authorization"), options_.token)) {
    res.set_header("WWW-Authenticate", "Bearer");
    SendJsonError(res, 401, kInvalidRequest,
                  "a bearer token is required (Authorization: Bearer TOKEN)");
    return false;
  }
  if (!IsLoopback(options_.host)) return true;
  // On loopback, a browser page is kept out (its Origin is not loopback),
  // and so is a request to a name that rebinds to 127.0.0.1 (its Host is
  // that name): DNS rebinding.
  std::string origin = req.get_header_value("Origin");
  if (!origin.empty() && !IsLoopback(HostOfOrigin(origin))) {
    SendJsonError(res, 403, kInvalidRequest, "Origin " + origin + " may not use this server");
    return false;
  }
  std::string host = req.get_header_value("Host");
  if (!host.empty() && !IsLoopback(HostOfAuthority(host))) {
    SendJsonError(res, 403, kInvalidRequest,
                  "Host " + host + " is not loopback: this server answers only on loopback");
    return false;
  }
  return true;
}

std::shared_ptr<McpSession> HttpTransport::SessionOf(const httplib::Request& req,
                                                     httplib::Response& res) {
  std::string id = req.get_header_value("Mcp-Session-Id");
  if (id.empty()) {
    SendJsonError(res, 400, kInvalidRequest,
                  "the Mcp-Session-Id header is required (initialize first)");
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    SendJsonError(res, 404, kInvalidRequest, "no session " + id + " (it ended: initialize again)");
    return nullptr;
  }
  it->second.last_used = std::chrono::steady_clock::now();
  return it->second.session;
}

std::vector<std::shared_ptr<McpSession>> HttpTransport::TakeIdleSessions() {
  std::vector<std::shared_ptr<McpSession>> idle;
  const auto now = std::chrono::steady_clock::now();
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (now - it->second.last_used >= options_.session_idle &&
        it->second.session->in_flight() == 0) {
      idle.push_back(std::move(it->second.session));
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
  return idle;
}

std::string HttpTransport::AddSession(std::shared_ptr<McpSession> session, httplib::Response& res) {
  std::vector<std::shared_ptr<McpSession>> ending;  // let go after the lock
  std::lock_guard<std::mutex> lock(mu_);
  ending = TakeIdleSessions();
  if (sessions_.size() >= options_.max_sessions) {
    res.set_header("Retry-After", "60");
    SendJsonError(res, 503, kInternalError,
                  std::to_string(sessions_.size()) +
                      " sessions are open (the most at once): end one (DELETE) or retry later");
    return "";
  }
  std::string id = NewSessionId();
  sessions_[id] = {std::move(session), std::chrono::steady_clock::now()};
  return id;
}

void HttpTransport::Post(const httplib::Request& req, httplib::Response& res) {
  // A client states the revision it negotiated on every request after
  // initialize; one this server does not speak is refused (the specification's 400).
  const std::string version = req.get_header_value("MCP-Protocol-Version");
  const auto& known = SupportedProtocolVersions();
  if (!version.empty() && std::find(known.begin(), known.end(), version) == known.end())
    return SendJsonError(res, 400, kInvalidRequest,
                         "MCP-Protocol-Version " + version + " is not one this server speaks");
  RpcParsed parsed = ParseRpc(req.body);
  if (!parsed.ok) {
    res.status = 400;
    res.set_content(JsonText(parsed.error_reply), "application/json");
    return;
  }
  const RpcMessage& m = parsed.message;
  std::shared_ptr<McpSession> session;
  if (m.kind == RpcMessage::Kind::kRequest && m.method == "initialize") {
    session = make_session_();
    std::string id = AddSession(session, res);
    if (id.empty()) return;
    res.set_header("Mcp-Session-Id", id);
  } else {
    session = SessionOf(req, res);
    if (!session) return;
  }
  if (m.kind != RpcMessage::Kind::kRequest) {
    session->Handle(m, ReplyChannel{[](const nlohmann::json&) {}});
    res.status = 202;
    return;
  }
  auto stream = std::make_shared<RequestStream>();
  session->Handle(m, ReplyChannel{[stream](const nlohmann::json& j) { stream->Send(j); },
                                  [stream] { stream->Finish(); }});
  if (std::string only; stream->FinishedWithOne(only)) {
    res.set_content(only, "application/json");
    return;
  }
  res.set_header("Cache-Control", "no-cache");
  // The provider keeps the session alive until the call's stream ends.
  res.set_chunked_content_provider(
      "text/event-stream", [stream, session](size_t, httplib::DataSink& sink) {
        std::string message;
        switch (stream->Take(message, std::chrono::seconds(1))) {
          case RequestStream::Next::kMessage: {
            std::string event = "event: message\ndata: " + message + "\n\n";
            return sink.write(event.data(), event.size());
          }
          case RequestStream::Next::kWaiting:
            return sink.is_writable();
          case RequestStream::Next::kDone:
            sink.done();
            return true;
        }
        return false;
      });
}

void HttpTransport::Delete(const httplib::Request& req, httplib::Response& res) {
  std::shared_ptr<McpSession> session = SessionOf(req, res);
  if (!session) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.erase(req.get_header_value("Mcp-Session-Id"));
  }
  session->CancelAll();
  res.status = 200;
}

Status HttpTransport::Start() {
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return Admit(req, res) ? httplib::Server::HandlerResponse::Unhandled
                           : httplib::Server::HandlerResponse::Handled;
  });
  server_->Post("/mcp",
                [this](const httplib::Request& req, httplib::Response& res) { Post(req, res); });
  server_->Delete(
      "/mcp", [this](const httplib::Request& req, httplib::Response& res) { Delete(req, res); });
  server_->Get("/mcp", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Allow", "POST, DELETE");
    SendJsonError(res, 405, kMethodNotFound,
                  "this server opens no stream of its own: POST requests");
  });
  return listener_.Start({.host = options_.host,
                          .port = options_.port,
                          .token = options_.token,
                          .threads = kHttpThreads,
                          .max_body_bytes = kMaxBodyBytes,
                          .host_flag = "--http",
                          .token_from = "HONE_MCP_TOKEN or --token-file"});
}

void HttpTransport::Stop() {
  listener_.Stop();
  std::map<std::string, LiveSession> ending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ending.swap(sessions_);
  }
  ending.clear();  // each session cancels its calls and waits for them
}

}  // namespace hone::mcp
