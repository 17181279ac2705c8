// Which hosts, Host headers and Origins count as loopback
// (src/serve/http_service.h): the guard of hone serve and hone mcp --http
// against a browser page and DNS rebinding.
#include <gtest/gtest.h>

#include "serve/http_service.h"

namespace hone {
namespace {

TEST(HttpLoopbackTest, LoopbackAddressesAndLocalhostAreLoopback) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LocalHost"})
    EXPECT_TRUE(IsLoopback(host)) << host;
}

TEST(HttpLoopbackTest, NamesThatMerelyLookLikeLoopbackAreNot) {
  for (const char* host : {"127.attacker.com", "127.0.0.1.attacker.com", "localhost.attacker.com",
                           "0.0.0.0", "10.0.0.1", "::", "::ffff:8.8.8.8", "", "128.0.0.1"})
    EXPECT_FALSE(IsLoopback(host)) << host;
}

TEST(HttpLoopbackTest, HostsOfHostHeadersAndOrigins) {
  EXPECT_EQ(HostOfAuthority("localhost:8080"), "localhost");
  EXPECT_EQ(HostOfAuthority("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(HostOfAuthority("[::1]:80"), "::1");
  EXPECT_EQ(HostOfAuthority("evil.com:80"), "evil.com");
  EXPECT_EQ(HostOfOrigin("http://localhost:3000"), "localhost");
  EXPECT_EQ(HostOfOrigin("https://[::1]:3000/x"), "::1");
  EXPECT_EQ(HostOfOrigin("http://127.attacker.com"), "127.attacker.com");
  EXPECT_FALSE(IsLoopback(HostOfOrigin("http://127.attacker.com:80")));
  EXPECT_EQ(HostOfOrigin("null"), "");
  EXPECT_FALSE(IsLoopback(HostOfOrigin("null")));
}

}  // namespace
}  // namespace hone
