// A small RAII client for one Redis connection, over hiredis's blocking API.
//
// Ownership: a RedisClient owns its connection (redisContext) and closes it
// when destroyed. It connects lazily, on Connect() or the first command.
//
// Failure: nothing throws. A connection that cannot be made, breaks or
// times out is Status::Unavailable naming the address; the connection is
// then dropped and the next command reconnects. A command marked `retry`
// (one the caller knows is safe to send twice) is sent once more on a fresh
// connection after such a failure. An error *reply* from Redis (WRONGTYPE,
// NOGROUP, NOSCRIPT...) is not a failure of the client: it comes back as a
// RedisReply of type kError for the caller to judge (OkReply turns it into
// Status::Internal). Writes never raise SIGPIPE: it is blocked in the
// calling thread while hiredis writes, and one it raised is consumed.
//
// Threads: thread-compatible; one thread uses a client at a time. Pub/Sub:
// after Send("SUBSCRIBE", ...) the connection only reads pushed messages
// (Read) until it is unsubscribed; commands other than (UN)SUBSCRIBE must
// not be sent on it meanwhile.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

struct redisContext;

namespace hone {

struct RedisReply {
  enum class Type { kNil, kString, kStatus, kInteger, kArray, kError };
  Type type = Type::kNil;
  std::string str;                   // kString, kStatus, kError
  long long integer = 0;             // kInteger
  std::vector<RedisReply> elements;  // kArray

  bool nil() const { return type == Type::kNil; }
  bool error() const { return type == Type::kError; }
  bool is_string() const { return type == Type::kString || type == Type::kStatus; }
};

struct RedisAddress {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string ToString() const { return host + ":" + std::to_string(port); }
};

// "HOST:PORT", "HOST" (port 6379) or "[IPv6]:PORT"; Status::Invalid saying
// what is wrong (the caller prefixes the flag's name).
Result<RedisAddress> ParseRedisAddress(const std::string& text);

struct RedisClientOptions {
  RedisAddress address;
  // Redis ACL credentials (serve/redis_credentials.h), sent with AUTH on
  // every new connection; an empty password sends none. A refusal is
  // Status::Invalid (never retried: the next try would be refused too).
  std::string user;
  std::string password;
  std::chrono::milliseconds connect_timeout{2000};
  // The longest one reply may take; blocking commands pass their own.
  std::chrono::milliseconds command_timeout{5000};
};

// Status::Internal "redis: MESSAGE" for an error reply, else the reply.
Result<RedisReply> OkReply(Result<RedisReply> reply);

class RedisClient {
 public:
  explicit RedisClient(RedisClientOptions options);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Connects unless connected.
  Status Connect();
  void Disconnect();
  bool connected() const { return ctx_ != nullptr; }
  // How many connections were made so far (a reconnect counts one).
  uint64_t connections() const { return connections_; }
  const RedisAddress& address() const { return options_.address; }

  // One command and its reply. `timeout` overrides the command timeout (a
  // blocking command: its block time plus a margin).
  Result<RedisReply> Command(const std::vector<std::string>& argv, bool retry = false,
                             std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  // Several commands in one round trip; their replies, in order.
  Result<std::vector<RedisReply>> Pipeline(const std::vector<std::vector<std::string>>& commands,
                                           bool retry = false);

  // Pub/Sub: sends a command without reading its reply; the replies (the
  // subscription confirmations, then messages) are read with Read.
  Status Send(const std::vector<std::string>& argv);
  // The next reply pushed on this connection, waiting up to `timeout`;
  // nullopt when none came in time (the connection stays usable).
  Result<std::optional<RedisReply>> Read(std::chrono::milliseconds timeout);

 private:
  Result<std::vector<RedisReply>> PipelineOnce(
      const std::vector<std::vector<std::string>>& commands,
      std::optional<std::chrono::milliseconds> timeout);
  Status Append(const std::vector<std::string>& argv);
  Status SetTimeout(std::chrono::milliseconds timeout);
  Status Authenticate();
  Status Broken(const std::string& what);

  RedisClientOptions options_;
  redisContext* ctx_ = nullptr;
  std::chrono::milliseconds timeout_set_{0};
  uint64_t connections_ = 0;
};

}  // namespace hone
