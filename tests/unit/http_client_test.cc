#include "llm/http_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "support/fake_llm_server.h"

namespace hone {
namespace {

class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start().ok()); }

  HttpResponse Post(const std::string& path,
                    std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    HttpRequest request;
    request.url = server_.base_url() + path;
    request.headers = {{"Authorization", "Bearer secret"}, {"Content-Type", "application/json"}};
    request.body = R"({"hello":"world"})";
    request.timeout = timeout;
    return client_->Post(request);
  }

  FakeLlmServer server_;
  std::unique_ptr<HttpClient> client_ = MakeCurlHttpClient();
};

// A port nothing listens on: bound once, then released.
int UnusedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST_F(HttpClientTest, PostsBodyAndHeadersAndReadsTheReply) {
  server_.Enqueue("/v1/echo", FakeResponse{200, {{"X-Request-ID", "abc"}}, R"({"ok":true})"});
  HttpResponse r = Post("/v1/echo");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"ok":true})");
  EXPECT_EQ(r.headers["x-request-id"], "abc");
  EXPECT_EQ(r.headers["content-type"], "application/json");
  EXPECT_TRUE(r.transport_error.empty());
  EXPECT_FALSE(r.timed_out);
  EXPECT_GT(r.seconds, 0);
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/v1/echo");
  EXPECT_EQ(requests[0].body, R"({"hello":"world"})");
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer secret");
  EXPECT_EQ(requests[0].headers.count("expect"), 0u);
}

TEST_F(HttpClientTest, ErrorStatusesAreResponsesNotTransportErrors) {
  server_.Enqueue(FakeResponse{503, {{"Retry-After", "7"}}, "overloaded"});
  HttpResponse r = Post("/x");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "overloaded");
  EXPECT_EQ(r.headers["retry-after"], "7");
  EXPECT_TRUE(r.transport_error.empty());
}

TEST_F(HttpClientTest, ConnectionRefusedIsATransportError) {
  HttpRequest request;
  request.url = "http://127.0.0.1:" + std::to_string(UnusedPort()) + "/x";
  HttpResponse r = client_->Post(request);
  EXPECT_EQ(r.status, 0);
  EXPECT_FALSE(r.transport_error.empty());
  EXPECT_FALSE(r.timed_out);
}

TEST_F(HttpClientTest, TimeoutIsATransportErrorMarkedTimedOut) {
  server_.Enqueue(FakeResponse{200, {}, "{}", /*delay_ms=*/5000});
  HttpResponse r = Post("/slow", std::chrono::milliseconds(200));
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.transport_error.empty());
  EXPECT_LT(r.seconds, 3);
}

TEST_F(HttpClientTest, DroppedConnectionIsATransportError) {
  FakeResponse drop;
  drop.drop_connection = true;
  server_.Enqueue(drop);
  HttpResponse r = Post("/x");
  EXPECT_EQ(r.status, 0);
  EXPECT_FALSE(r.transport_error.empty()) << r.transport_error;
  EXPECT_FALSE(r.timed_out);
}

TEST_F(HttpClientTest, BodyCutShortIsATransportError) {
  FakeResponse partial{200, {}, OpenAiReply("a fairly long reply text")};
  partial.partial = true;
  server_.Enqueue(partial);
  HttpResponse r = Post("/x");
  EXPECT_EQ(r.status, 0);
  EXPECT_FALSE(r.transport_error.empty());
}

TEST_F(HttpClientTest, ManyThreadsPostAtOnce) {
  server_.SetHandler([](const FakeRequest& req) { return FakeResponse{200, {}, req.body}; });
  std::vector<std::thread> threads;
  std::vector<int> statuses(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] { statuses[i] = Post("/x").status; });
  }
  for (auto& t : threads) t.join();
  for (int s : statuses) EXPECT_EQ(s, 200);
  EXPECT_EQ(server_.requests().size(), 8u);
}

}  // namespace
}  // namespace hone
