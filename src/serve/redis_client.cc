#include "serve/redis_client.h"

#include <hiredis/hiredis.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <charconv>

namespace hone {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

timeval ToTimeval(milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

RedisReply Convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::kString;
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kStatus;
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::kError;
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = r->integer;
      return out;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(Convert(r->element[i]));
      return out;
    default:
      return out;  // nil
  }
  out.str.assign(r->str, r->len);
  return out;
}

// hiredis writes with write(2), which raises SIGPIPE when Redis has closed
// the connection; that must be an error of the command, not the end of the
// process. SIGPIPE is thread-directed, so blocking it in this thread for the
// write and consuming one it raised keeps the process's disposition (and
// the sandboxes' it would be inherited by) untouched.
class NoSigpipe {
 public:
  NoSigpipe() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~NoSigpipe() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE)) {
      timespec zero{};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  NoSigpipe(const NoSigpipe&) = delete;
  NoSigpipe& operator=(const NoSigpipe&) = delete;

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

// Takes ownership of a reply hiredis allocated.
RedisReply Adopt(void* raw) {
  auto* r = static_cast<redisReply*>(raw);
  RedisReply out = Convert(r);
  freeReplyObject(r);
  return out;
}

}  // namespace

Result<RedisAddress> ParseRedisAddress(const std::string& text) {
  RedisAddress a;
  std::string port;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos)
      return Status::Invalid("expected [IPv6]:PORT, got '" + text + "'");
    a.host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':')
        return Status::Invalid("expected [IPv6]:PORT, got '" + text + "'");
      port = text.substr(close + 2);
    }
  } else if (size_t colon = text.rfind(':'); colon != std::string::npos) {
    a.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  } else {
    a.host = text;
  }
  if (a.host.empty()) return Status::Invalid("expected HOST:PORT, got '" + text + "' (no host)");
  if (!port.empty() || text.back() == ':') {
    int p = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || end != port.data() + port.size() || p < 1 || p > 65535)
      return Status::Invalid("expected HOST:PORT with a port in 1-65535, got '" + text + "'");
    a.port = p;
  }
  return a;
}

Result<RedisReply> OkReply(Result<RedisReply> reply) {
  if (reply.ok() && reply->error()) return Status::Internal("redis: " + reply->str);
  return reply;
}

RedisClient::RedisClient(RedisClientOptions options) : options_(std::move(options)) {}

RedisClient::~RedisClient() { Disconnect(); }

void RedisClient::Disconnect() {
  if (ctx_) redisFree(ctx_);
  ctx_ = nullptr;
  timeout_set_ = milliseconds(0);
}

Status RedisClient::Connect() {
  if (ctx_) return Status::Ok();
  redisContext* c = redisConnectWithTimeout(options_.address.host.c_str(), options_.address.port,
                                            ToTimeval(options_.connect_timeout));
  if (!c || c->err) {
    std::string why = c ? c->errstr : "out of memory";
    if (c) redisFree(c);
    return Status::Unavailable("redis " + options_.address.ToString() + ": cannot connect: " + why);
  }
  ctx_ = c;
  ++connections_;
  // A peer that vanished (a node lost, a cable pulled) is noticed without
  // waiting for the next command to time out.
  redisEnableKeepAlive(ctx_);
  HONE_RETURN_IF_ERROR(SetTimeout(options_.command_timeout));
  return Authenticate();
}

Status RedisClient::Authenticate() {
  if (options_.password.empty()) return Status::Ok();
  std::vector<std::string> argv = {"AUTH"};
  if (!options_.user.empty()) argv.push_back(options_.user);
  argv.push_back(options_.password);
  HONE_RETURN_IF_ERROR(Append(argv));
  NoSigpipe guard;
  void* raw = nullptr;
  if (redisGetReply(ctx_, &raw) != REDIS_OK || !raw) return Broken("no reply to AUTH");
  RedisReply reply = Adopt(raw);
  if (!reply.error()) return Status::Ok();
  Disconnect();
  // The reply names no secret; the user name helps find a typo.
  std::string who = options_.user.empty() ? "the password" : "user '" + options_.user + "'";
  return Status::Invalid("redis " + options_.address.ToString() + ": refused " + who + ": " +
                         reply.str);
}

Status RedisClient::SetTimeout(milliseconds timeout) {
  if (timeout == timeout_set_) return Status::Ok();
  if (redisSetTimeout(ctx_, ToTimeval(timeout)) != REDIS_OK) return Broken("cannot set a timeout");
  timeout_set_ = timeout;
  return Status::Ok();
}

// The connection is unusable once hiredis reports an error on it.
Status RedisClient::Broken(const std::string& what) {
  std::string why = ctx_ && ctx_->errstr[0] ? ctx_->errstr : what;
  Disconnect();
  return Status::Unavailable("redis " + options_.address.ToString() + ": " + why);
}

Status RedisClient::Append(const std::vector<std::string>& argv) {
  std::vector<const char*> args;
  std::vector<size_t> lens;
  args.reserve(argv.size());
  lens.reserve(argv.size());
  for (const auto& a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), args.data(), lens.data()) !=
      REDIS_OK)
    return Broken("cannot queue a command");
  return Status::Ok();
}

Result<std::vector<RedisReply>> RedisClient::PipelineOnce(
    const std::vector<std::vector<std::string>>& commands, std::optional<milliseconds> timeout) {
  HONE_RETURN_IF_ERROR(Connect());
  HONE_RETURN_IF_ERROR(SetTimeout(timeout.value_or(options_.command_timeout)));
  for (const auto& argv : commands) HONE_RETURN_IF_ERROR(Append(argv));
  NoSigpipe guard;  // the first redisGetReply writes the commands
  std::vector<RedisReply> replies;
  replies.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(ctx_, &raw) != REDIS_OK || !raw) return Broken("no reply");
    replies.push_back(Adopt(raw));
  }
  return replies;
}

Result<std::vector<RedisReply>> RedisClient::Pipeline(
    const std::vector<std::vector<std::string>>& commands, bool retry) {
  auto replies = PipelineOnce(commands, std::nullopt);
  if (!replies.ok() && retry) replies = PipelineOnce(commands, std::nullopt);
  return replies;
}

Result<RedisReply> RedisClient::Command(const std::vector<std::string>& argv, bool retry,
                                        std::optional<milliseconds> timeout) {
  auto replies = PipelineOnce({argv}, timeout);
  if (!replies.ok() && retry) replies = PipelineOnce({argv}, timeout);
  if (!replies.ok()) return replies.status();
  return std::move(replies->front());
}

Status RedisClient::Send(const std::vector<std::string>& argv) {
  HONE_RETURN_IF_ERROR(Connect());
  HONE_RETURN_IF_ERROR(SetTimeout(options_.command_timeout));
  HONE_RETURN_IF_ERROR(Append(argv));
  NoSigpipe guard;
  for (int done = 0; !done;)
    if (redisBufferWrite(ctx_, &done) != REDIS_OK) return Broken("cannot send");
  return Status::Ok();
}

Result<std::optional<RedisReply>> RedisClient::Read(milliseconds timeout) {
  if (!ctx_) return Status::Unavailable("redis " + options_.address.ToString() + ": not connected");
  auto deadline = Clock::now() + timeout;
  while (true) {
    void* raw = nullptr;
    if (redisGetReplyFromReader(ctx_, &raw) != REDIS_OK) return Broken("unreadable reply");
    if (raw) return std::optional<RedisReply>(Adopt(raw));
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::optional<RedisReply>();
    pollfd p{ctx_->fd, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left.count()) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Broken("poll failed");
    if (n == 0) continue;  // the deadline check above ends the wait
    if (redisBufferRead(ctx_) != REDIS_OK) return Broken("connection lost");
  }
}

}  // namespace hone
