#include "support/redis_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/fs.h"

namespace hone {

namespace {

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

}  // namespace

std::string FindRedisServer() {
  // HONE_TEST_REDIS_SERVER names another one ("" or a missing file: none).
  if (const char* e = std::getenv("HONE_TEST_REDIS_SERVER"))
    return *e && access(e, X_OK) == 0 ? e : "";
  for (const char* p : {"/usr/bin/redis-server", "/usr/local/bin/redis-server"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

RedisClientOptions TestRedisServer::client_options() const {
  RedisClientOptions o = credentials_;
  o.address.host = "127.0.0.1";
  o.address.port = port_;
  return o;
}

Result<std::unique_ptr<TestRedisServer>> TestRedisServer::Start() { return Launched({}, {}); }

Result<std::unique_ptr<TestRedisServer>> TestRedisServer::StartWithAcl(
    const std::string& user, const std::string& password) {
  RedisClientOptions credentials;
  credentials.user = user;
  credentials.password = password;
  // The ACL docs/SERVE.md gives: the default prefix's keys and channels.
  return Launched({"--user", "default", "off", "--user", user, "on", ">" + password, "~hone:*",
                   "&hone:*", "+@all", "-@dangerous"},
                  credentials);
}

Result<std::unique_ptr<TestRedisServer>> TestRedisServer::Launched(std::vector<std::string> extra,
                                                                   RedisClientOptions credentials) {
  std::string server = FindRedisServer();
  if (server.empty())
    return Status::Unavailable(
        "redis-server is not installed (Debian: redis-server; "
        "scripts/setup installs it)");
  std::unique_ptr<TestRedisServer> s(new TestRedisServer());
  s->extra_ = std::move(extra);
  s->credentials_ = std::move(credentials);
  HONE_ASSIGN_OR_RETURN(s->dir_, MakeTempDir(fs::temp_directory_path(), "hone-redis"));
  Status last = Status::Unavailable("redis-server did not start");
  for (int attempt = 0; attempt < 5; ++attempt) {
    last = s->Launch(server);
    if (last.ok()) return s;
  }
  return last;
}

Status TestRedisServer::Launch(const std::string& server) {
  port_ = FreeLoopbackPort();
  if (port_ == 0) return Status::Unavailable("no free loopback port");
  std::vector<std::string> args = {server,
                                   "--port",
                                   std::to_string(port_),
                                   "--bind",
                                   "127.0.0.1",
                                   "--save",
                                   "",
                                   "--appendonly",
                                   "no",
                                   "--dir",
                                   dir_.string(),
                                   "--logfile",
                                   (dir_ / "redis.log").string()};
  args.insert(args.end(), extra_.begin(), extra_.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (pid_ < 0) return Status::Unavailable("fork failed");
  RedisClient client(client_options());
  for (int i = 0; i < 100; ++i) {
    auto pong = client.Command({"PING"});
    if (pong.ok() && pong->str == "PONG") return Status::Ok();
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {  // it exited: the port was taken
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Stop();
  return Status::Unavailable("redis-server did not answer on port " + std::to_string(port_));
}

void TestRedisServer::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

TestRedisServer::~TestRedisServer() {
  Stop();
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

}  // namespace hone
