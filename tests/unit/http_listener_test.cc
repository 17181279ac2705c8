// The pieces hone serve and hone mcp --http share (src/serve/http_listener.h):
// the bearer token check, token files, the URL they print, and binding.
#include "serve/http_listener.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>

#include "core/fs.h"
#include "core/temp_dir.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

TEST(HttpListenerTest, BearerTokensMatchExactlyWithTheSchemeInAnyCase) {
  EXPECT_TRUE(BearerTokenMatches("Bearer s3cret", "s3cret"));
  EXPECT_TRUE(BearerTokenMatches("bearer s3cret", "s3cret"));
  EXPECT_TRUE(BearerTokenMatches("BEARER s3cret", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("Bearer s3cre", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("Bearer s3cretX", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("Basic s3cret", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("s3cret", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("Bearer ", "")) << "no token never matches";
}

TEST(HttpListenerTest, ATokenFilesFirstLineWithoutItsCarriageReturn) {
  TempDirOwner dir(MakeTempDir(fs::temp_directory_path(), "http-listener-").value());
  std::ofstream(dir.path() / "unix") << "abc\nignored\n";
  std::ofstream(dir.path() / "windows") << "abc\r\n";
  std::ofstream(dir.path() / "empty") << "\n";
  EXPECT_EQ(ReadTokenFile((dir.path() / "unix").string()).value(), "abc");
  EXPECT_EQ(ReadTokenFile((dir.path() / "windows").string()).value(), "abc");
  EXPECT_FALSE(ReadTokenFile((dir.path() / "empty").string()).ok());
  EXPECT_FALSE(ReadTokenFile((dir.path() / "none").string()).ok());
}

TEST(HttpListenerTest, UrlsBracketIpv6Hosts) {
  EXPECT_EQ(HttpUrl("127.0.0.1", 80), "http://127.0.0.1:80");
  EXPECT_EQ(HttpUrl("::1", 8080), "http://[::1]:8080");
}

TEST(HttpListenerTest, RefusesOffLoopbackWithoutATokenAndABoundPort) {
  httplib::Server server;
  HttpListener listener(server);
  ListenerOptions open;
  open.host = "0.0.0.0";
  open.token_from = "--token";
  Status st = listener.Start(open);
  EXPECT_EQ(st.code(), StatusCode::kInvalidInput);
  EXPECT_NE(st.message().find("--host 0.0.0.0 is not loopback"), std::string::npos);

  ListenerOptions loopback;
  ASSERT_TRUE(listener.Start(loopback).ok());
  httplib::Server other;
  HttpListener second(other);
  loopback.port = listener.port();
  Status taken = second.Start(loopback);
  EXPECT_EQ(taken.code(), StatusCode::kUnavailable);
  EXPECT_NE(taken.message().find("the port is in use"), std::string::npos) << taken.message();
  listener.Stop();
}

}  // namespace
}  // namespace hone
