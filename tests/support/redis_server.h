// A private redis-server for a test: started on a free loopback port, with
// no persistence (--save "" --appendonly no) in a temporary folder, and
// stopped (SIGTERM, then SIGKILL) and cleaned up by the destructor.
//
// Redis has no "--port 0", so Start binds an ephemeral port to learn a free
// one, releases it and starts redis-server on it, trying again (a few
// times) if another process took the port in between. Not thread-safe.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "serve/redis_client.h"

namespace hone {

// redis-server's path ($HONE_TEST_REDIS_SERVER, else Debian's), or "" when
// it is not installed.
std::string FindRedisServer();

class TestRedisServer {
 public:
  // Status::Unavailable when redis-server is missing or will not start.
  static Result<std::unique_ptr<TestRedisServer>> Start();
  // One whose default user is off: only `user` with `password` may connect,
  // to keys and channels under "hone:" (the ACL docs/SERVE.md gives).
  static Result<std::unique_ptr<TestRedisServer>> StartWithAcl(const std::string& user,
                                                               const std::string& password);
  ~TestRedisServer();
  TestRedisServer(const TestRedisServer&) = delete;
  TestRedisServer& operator=(const TestRedisServer&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  // With the ACL user's credentials when it has one.
  RedisClientOptions client_options() const;

 private:
  TestRedisServer() = default;
  static Result<std::unique_ptr<TestRedisServer>> Launched(std::vector<std::string> extra,
                                                           RedisClientOptions credentials);
  Status Launch(const std::string& server);
  void Stop();

  std::vector<std::string> extra_;
  RedisClientOptions credentials_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path dir_;
};

}  // namespace hone
