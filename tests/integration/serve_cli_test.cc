// The `hone serve` command itself: flags it refuses (exit 2, naming the
// flag) before it touches the network, a Redis that cannot be reached (exit
// 1, naming --redis), and a whole life against a private redis-server: it
// says where it listens (--port 0, --json), answers /healthz, and exits 0
// on SIGTERM. The routes behind it have their own tests (serve_http_test,
// tests/python/serve_shims_test.py). The last test skips without
// redis-server.
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "integration/test_env.h"
#include "support/redis_server.h"

namespace hone {
namespace {

using json = nlohmann::json;
using testing::RunHone;

// hone serve with `args`; HONE_SERVE_TOKEN is unset for the call.
CommandResult Serve(std::vector<std::string> args) {
  unsetenv("HONE_SERVE_TOKEN");
  args.insert(args.begin(), "serve");
  return RunHone(args);
}

bool Says(const CommandResult& r, const std::string& text) {
  return r.output.find(text) != std::string::npos;
}

TEST(ServeCliTest, OffLoopbackWithoutATokenExitsTwoNamingToken) {
  auto r = Serve({"--host", "0.0.0.0", "--port", "0", "--redis", "127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Says(r, "--token")) << r.output;
  EXPECT_TRUE(Says(r, "0.0.0.0")) << r.output;
}

TEST(ServeCliTest, BadRedisAddressExitsTwoNamingRedis) {
  for (const char* address : {"127.0.0.1:notaport", "127.0.0.1:70000", ""}) {
    auto r = Serve({"--port", "0", "--redis", address});
    EXPECT_EQ(r.exit_code, 2) << address << ": " << r.output;
    EXPECT_TRUE(Says(r, "--redis")) << address << ": " << r.output;
  }
}

TEST(ServeCliTest, BadFlagValuesExitTwoNamingTheFlag) {
  const std::vector<std::vector<std::string>> cases = {
      {"--port", "70000"},
      {"--max-queued", "0"},
      {"--max-inflight-per-client", "0"},
      {"--max-body-mb", "0"},
      {"--threads", "0"},
      {"--connect-timeout", "-1"},
      {"--connect-timeout", "nan"},
      {"--connect-timeout", "inf"},
      {"--key-prefix", ""},
      {"--backend", "tpu"},
      {"--reward", "no_such_preset"},
      {"--reward", "{\"preset\": \"fast_p\", \"no_such_key\": 1}"},
      {"--reward", "{not json"},
  };
  for (const auto& c : cases) {
    auto r = Serve({c[0], c[1], "--redis", "127.0.0.1:1"});
    EXPECT_EQ(r.exit_code, 2) << c[0] << " " << c[1] << ": " << r.output;
    EXPECT_TRUE(Says(r, c[0])) << c[0] << " " << c[1] << ": " << r.output;
  }
}

TEST(ServeCliTest, UnreachableRedisExitsOneNamingRedis) {
  auto r = Serve({"--port", "0", "--redis", "127.0.0.1:1", "--connect-timeout", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Says(r, "--redis: ")) << r.output;
  EXPECT_TRUE(Says(r, "127.0.0.1:1")) << r.output;
}

// Waiting for a Redis that is not there yet is said (with why), not silent.
TEST(ServeCliTest, WaitingForRedisIsSaid) {
  auto r = Serve({"--port", "0", "--redis", "127.0.0.1:1", "--connect-timeout", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Says(r, "hone serve: waiting for Redis at 127.0.0.1:1 (0 of 1 s, --connect-timeout)"))
      << r.output;
  EXPECT_TRUE(Says(r, "cannot connect")) << r.output;
  auto quiet = Serve({"--port", "0", "--redis", "127.0.0.1:1", "--connect-timeout", "1", "-q"});
  EXPECT_FALSE(Says(quiet, "waiting for Redis")) << quiet.output;
}

// The first line of `file` once it has one, else "" after `wait`.
std::string FirstLine(const fs::path& file, std::chrono::seconds wait) {
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < deadline) {
    auto text = ReadFile(file);
    if (text.ok() && text->find('\n') != std::string::npos)
      return text->substr(0, text->find('\n'));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

TEST(ServeCliTest, SaysWhereItListensServesAndStopsOnSigterm) {
  auto redis = TestRedisServer::Start();
  if (!redis.ok()) GTEST_SKIP() << "no redis-server for this test: " << redis.status().message();
  fs::path dir = *MakeTempDir(fs::temp_directory_path(), "hone-serve-cli");
  fs::path log = dir / "serve.jsonl";
  unsetenv("HONE_SERVE_TOKEN");
  pid_t pid = testing::SpawnHone({"serve", "--port", "0", "--json", "--redis", (*redis)->address(),
                                  "--key-prefix", "cli-test:"},
                                 log.string());
  json listening = json::parse(FirstLine(log, std::chrono::seconds(30)), nullptr, false);
  ASSERT_TRUE(listening.is_object()) << *ReadFile(log);
  EXPECT_EQ(listening.value("event", ""), "listening");
  EXPECT_EQ(listening.value("host", ""), "127.0.0.1");
  EXPECT_EQ(listening.value("redis", ""), (*redis)->address());
  int port = listening.value("port", 0);
  ASSERT_GT(port, 0) << listening.dump();

  httplib::Client client("127.0.0.1", port);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health) << "no answer on port " << port;
  EXPECT_EQ(health->status, 200) << health->body;

  // A second server on the same port is refused (exit 1), never given a
  // share of the port's traffic (issue 35: SO_REUSEPORT let two listen).
  auto second = Serve({"--port", std::to_string(port), "--redis", (*redis)->address(),
                       "--key-prefix", "cli-test-2:"});
  EXPECT_EQ(second.exit_code, 1) << second.output;
  EXPECT_TRUE(Says(second, "the port is in use")) << second.output;

  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << *ReadFile(log);
  EXPECT_NE(ReadFile(log)->find("\"stopped\""), std::string::npos) << *ReadFile(log);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace hone
