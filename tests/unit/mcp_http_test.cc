// MCP over Streamable HTTP (src/mcp/http_transport.h): its guards on
// loopback (Host, Origin) and its bounds on sessions.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>

#include "core/fs.h"
#include "core/temp_dir.h"
#include "lang/builtin.h"
#include "mcp/device_queue.h"
#include "mcp/http_transport.h"
#include "mcp/tool_process.h"
#include "session/eval_context.h"

namespace hone::mcp {
namespace {

namespace fs = std::filesystem;

constexpr const char* kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})";
constexpr const char* kPing = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";

class McpHttpTest : public ::testing::Test {
 protected:
  McpHttpTest()
      : env_("hone", PathGuard::Make({dir_.path().string()}).value(), runner_, queue_,
             dir_.path() / "work", (dir_.path() / "hone.db").string(), BuiltInLanguages(),
             ToolBackendsOf(BuiltInBackends())) {}
  // Starts a transport with `options` (host and port: loopback, any).
  void Serve(HttpOptions options) {
    http_ = std::make_unique<HttpTransport>(
        options, [this] { return std::make_unique<McpSession>(env_, std::vector<Tool>{}, "1"); });
    ASSERT_TRUE(http_->Start().ok());
  }
  httplib::Result Post(const std::string& body, httplib::Headers headers = {}) {
    httplib::Client client("127.0.0.1", http_->port());
    headers.insert({"Accept", "application/json, text/event-stream"});
    return client.Post("/mcp", headers, body, "application/json");
  }

  TempDirOwner dir_{MakeTempDir(fs::temp_directory_path(), "mcp-http-").value()};
  ProcessRunner runner_;
  DeviceQueue queue_;
  ToolEnv env_;
  std::unique_ptr<HttpTransport> http_;
};

TEST_F(McpHttpTest, OnLoopbackAForeignHostOrOriginIsRefused) {
  Serve({});
  EXPECT_EQ(Post(kInitialize)->status, 200);
  EXPECT_EQ(Post(kInitialize, {{"Host", "evil.example:80"}})->status, 403) << "DNS rebinding";
  EXPECT_EQ(Post(kInitialize, {{"Origin", "http://127.attacker.com"}})->status, 403);
  EXPECT_EQ(Post(kInitialize, {{"Origin", "http://localhost:3000"}})->status, 200);
}

TEST_F(McpHttpTest, SessionsAreBoundedAndIdleOnesEnd) {
  HttpOptions bounded;
  bounded.max_sessions = 1;
  Serve(bounded);
  EXPECT_EQ(Post(kInitialize)->status, 200);
  EXPECT_EQ(Post(kInitialize)->status, 503) << "one session at most";
  http_.reset();

  HttpOptions idle;
  idle.max_sessions = 1;
  idle.session_idle = std::chrono::milliseconds(0);
  Serve(idle);
  auto first = Post(kInitialize);
  ASSERT_EQ(first->status, 200);
  const std::string id = first->get_header_value("Mcp-Session-Id");
  EXPECT_EQ(Post(kInitialize)->status, 200) << "the idle session made room";
  EXPECT_EQ(Post(kPing, {{"Mcp-Session-Id", id}})->status, 404) << "the idle session ended";
}

}  // namespace
}  // namespace hone::mcp
