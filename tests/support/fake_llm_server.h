// A scripted HTTP/1.1 server on 127.0.0.1 standing in for an LLM endpoint.
//
// Start() binds an ephemeral port; base_url() is "http://127.0.0.1:PORT"
// (no path), so a request to base_url() + "/chat/completions" arrives with
// path "/chat/completions". One request per connection (Connection: close),
// bodies by Content-Length. A thread accepts; each connection is served on a
// thread of its own, so concurrent clients are concurrent here too.
//
// Replies come from, in order: the handler (when set), the queue of the
// request's path, the queue for any path, else a 500 naming the path. Every
// request is recorded. Thread-safe. Stop() (and the destructor) interrupts
// scripted delays, closes open connections and joins every thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/status.h"

namespace hone {

struct FakeRequest {
  std::string method, path;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

struct FakeResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // Content-Type defaults to JSON
  std::string body;
  int delay_ms = 0;              // wait after reading the request, before replying
  bool drop_connection = false;  // close without replying, after reading the request
  bool partial = false;          // send the headers and half the body, then close
};

// Canned bodies.
std::string OpenAiReply(const std::string& text, const std::string& finish_reason = "stop",
                        int prompt_tokens = 10, int completion_tokens = 20);
std::string AnthropicReply(const std::string& text, const std::string& stop_reason = "end_turn",
                           int input_tokens = 10, int output_tokens = 20,
                           const std::string& thinking = "");  // non-empty: a thinking block first
std::string ApiErrorBody(const std::string& message);          // {"error":{"message":...}}

class FakeLlmServer {
 public:
  using Handler = std::function<FakeResponse(const FakeRequest&)>;

  FakeLlmServer() = default;
  ~FakeLlmServer();
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  Status Start();
  void Stop();  // idempotent
  std::string base_url() const;
  int port() const { return port_; }

  void Enqueue(const std::string& path, FakeResponse response);  // path "": any path
  void Enqueue(FakeResponse response) { Enqueue("", std::move(response)); }
  void SetHandler(Handler handler);

  std::vector<FakeRequest> requests() const;
  // The most requests that were read and not yet answered at one moment.
  int max_in_progress() const;

 private:
  void AcceptLoop();
  void Serve(int fd);
  void ServeRequest(int fd, const FakeRequest& request);
  FakeResponse NextResponse(const FakeRequest& request);
  bool WaitUnlessStopped(int delay_ms);  // false: stopped meanwhile

  int listen_fd_ = -1, wake_pipe_[2] = {-1, -1}, port_ = 0;
  std::thread acceptor_;

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::set<int> open_fds_;
  std::map<std::string, std::deque<FakeResponse>> queues_;
  Handler handler_;
  std::vector<FakeRequest> requests_;
  int in_progress_ = 0, max_in_progress_ = 0;
};

}  // namespace hone
