#include "support/fake_llm_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

namespace hone {
namespace {

constexpr size_t kMaxHead = 1 << 20;
constexpr size_t kMaxBody = 64 << 20;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Appends what the socket has to `buf`; false at end of stream or error.
bool RecvSome(int fd, std::string& buf) {
  char chunk[16384];
  ssize_t n = recv(fd, chunk, sizeof chunk, 0);
  if (n <= 0) return false;
  buf.append(chunk, static_cast<size_t>(n));
  return true;
}

// "METHOD PATH HTTP/1.1" and "Name: value" lines into `request`.
bool ParseHead(const std::string& head, FakeRequest& request) {
  size_t line_end = head.find("\r\n");
  std::string first = head.substr(0, line_end);
  size_t sp1 = first.find(' '), sp2 = first.rfind(' ');
  if (sp1 == std::string::npos || sp2 <= sp1) return false;
  request.method = first.substr(0, sp1);
  request.path = first.substr(sp1 + 1, sp2 - sp1 - 1);
  for (size_t pos = line_end + 2; pos < head.size();) {
    size_t end = head.find("\r\n", pos);
    if (end == std::string::npos) end = head.size();
    std::string line = head.substr(pos, end - pos);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      request.headers[Lower(Trim(line.substr(0, colon)))] = Trim(line.substr(colon + 1));
    }
    pos = end + 2;
  }
  return true;
}

std::optional<FakeRequest> ReadRequest(int fd) {
  std::string buf;
  size_t head_end;
  while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
    if (buf.size() > kMaxHead || !RecvSome(fd, buf)) return std::nullopt;
  }
  FakeRequest request;
  if (!ParseHead(buf.substr(0, head_end), request)) return std::nullopt;
  size_t length = 0;
  if (auto it = request.headers.find("content-length"); it != request.headers.end()) {
    length = std::strtoull(it->second.c_str(), nullptr, 10);
  }
  if (length > kMaxBody) return std::nullopt;
  request.body = buf.substr(head_end + 4);
  while (request.body.size() < length) {
    if (!RecvSome(fd, request.body)) return std::nullopt;
  }
  request.body.resize(length);
  return request;
}

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 529:
      return "Overloaded";
    default:
      return "Status";
  }
}

std::string ResponseHead(const FakeResponse& r) {
  std::string head = "HTTP/1.1 " + std::to_string(r.status) + " " + Reason(r.status) + "\r\n";
  bool has_type = false;
  for (const auto& [name, value] : r.headers) {
    head += name + ": " + value + "\r\n";
    has_type = has_type || Lower(name) == "content-type";
  }
  if (!has_type) head += "Content-Type: application/json\r\n";
  head += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  head += "Connection: close\r\n\r\n";
  return head;
}

FakeResponse NothingScripted(const std::string& path) {
  return FakeResponse{500, {}, ApiErrorBody("fake server: no scripted response for " + path)};
}

}  // namespace

std::string OpenAiReply(const std::string& text, const std::string& finish_reason,
                        int prompt_tokens, int completion_tokens) {
  nlohmann::json j = {{"id", "chatcmpl-fake"},
                      {"object", "chat.completion"},
                      {"model", "fake"},
                      {"choices",
                       {{{"index", 0},
                         {"message", {{"role", "assistant"}, {"content", text}}},
                         {"finish_reason", finish_reason}}}},
                      {"usage",
                       {{"prompt_tokens", prompt_tokens},
                        {"completion_tokens", completion_tokens},
                        {"total_tokens", prompt_tokens + completion_tokens}}}};
  return j.dump();
}

std::string AnthropicReply(const std::string& text, const std::string& stop_reason,
                           int input_tokens, int output_tokens, const std::string& thinking) {
  nlohmann::json content = nlohmann::json::array();
  if (!thinking.empty()) {
    content.push_back({{"type", "thinking"}, {"thinking", thinking}, {"signature", "fake"}});
  }
  content.push_back({{"type", "text"}, {"text", text}});
  nlohmann::json j = {
      {"id", "msg_fake"},
      {"type", "message"},
      {"role", "assistant"},
      {"model", "fake"},
      {"content", content},
      {"stop_reason", stop_reason},
      {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}};
  return j.dump();
}

std::string ApiErrorBody(const std::string& message) {
  return nlohmann::json{{"error", {{"message", message}, {"type", "fake_error"}}}}.dump();
}

FakeLlmServer::~FakeLlmServer() { Stop(); }

Status FakeLlmServer::Start() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Status::Io(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listen_fd_, 64) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    return Status::Io(std::string("fake server: ") + std::strerror(errno));
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread(&FakeLlmServer::AcceptLoop, this);
  return Status::Ok();
}

void FakeLlmServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);
  }
  stop_cv_.notify_all();
  if (acceptor_.joinable()) {
    char byte = 0;
    [[maybe_unused]] ssize_t n = write(wake_pipe_[1], &byte, 1);
    acceptor_.join();
  }
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers.swap(workers_);
  }
  for (std::thread& t : workers) t.join();
  for (int* fd : {&listen_fd_, &wake_pipe_[0], &wake_pipe_[1]}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

std::string FakeLlmServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void FakeLlmServer::Enqueue(const std::string& path, FakeResponse response) {
  std::lock_guard<std::mutex> lock(mu_);
  queues_[path].push_back(std::move(response));
}

void FakeLlmServer::SetHandler(Handler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handler_ = std::move(handler);
}

std::vector<FakeRequest> FakeLlmServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

int FakeLlmServer::max_in_progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return max_in_progress_;
}

void FakeLlmServer::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      close(fd);
      return;
    }
    open_fds_.insert(fd);
    workers_.emplace_back(&FakeLlmServer::Serve, this, fd);
  }
}

void FakeLlmServer::Serve(int fd) {
  timeval timeout{10, 0};  // a stuck client cannot hold a worker for ever
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (std::optional<FakeRequest> request = ReadRequest(fd)) ServeRequest(fd, *request);
  std::lock_guard<std::mutex> lock(mu_);  // closed under the lock: Stop never sees a reused fd
  open_fds_.erase(fd);
  close(fd);
}

void FakeLlmServer::ServeRequest(int fd, const FakeRequest& request) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    max_in_progress_ = std::max(max_in_progress_, ++in_progress_);
  }
  FakeResponse response = NextResponse(request);
  bool live = WaitUnlessStopped(response.delay_ms);
  {
    std::lock_guard<std::mutex> lock(mu_);
    --in_progress_;
  }
  if (!live || response.drop_connection) return;
  std::string head = ResponseHead(response);
  if (response.partial) {
    SendAll(fd, head + response.body.substr(0, response.body.size() / 2));
    return;
  }
  SendAll(fd, head + response.body);
}

FakeResponse FakeLlmServer::NextResponse(const FakeRequest& request) {
  Handler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    handler = handler_;
    if (!handler) {
      for (const std::string& key : {request.path, std::string()}) {
        auto it = queues_.find(key);
        if (it == queues_.end() || it->second.empty()) continue;
        FakeResponse r = std::move(it->second.front());
        it->second.pop_front();
        return r;
      }
      return NothingScripted(request.path);
    }
  }
  return handler(request);
}

bool FakeLlmServer::WaitUnlessStopped(int delay_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  stop_cv_.wait_for(lock, std::chrono::milliseconds(delay_ms), [this] { return stopping_; });
  return !stopping_;
}

}  // namespace hone
