// The queue behind a Redis whose default user is off (ACL), the setup
// docs/SERVE.md gives for workers on other nodes: hone's clients log in
// with the credentials of --redis-auth or the environment, a wrong password
// is refused before anything starts (exit 2, naming the user, never the
// password), and a client without credentials can neither read nor write
// the queue, so no host that reaches the port can forge a result.
// Skipped when redis-server is missing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>

#include "core/fs.h"
#include "integration/test_env.h"
#include "serve/redis_credentials.h"
#include "serve/redis_job_queue.h"
#include "support/redis_server.h"

namespace hone {
namespace {

using namespace std::chrono_literals;
using testing::RunHone;

constexpr char kUser[] = "hone-queue";
constexpr char kPassword[] = "correct-horse-battery";

class RedisAclTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("HONE_REDIS_USER");
    unsetenv("HONE_REDIS_PASSWORD");
    auto s = TestRedisServer::StartWithAcl(kUser, kPassword);
    if (!s.ok()) GTEST_SKIP() << "no redis-server for this test: " << s.status().message();
    server_ = std::move(*s);
    auto dir = MakeTempDir(fs::temp_directory_path(), "hone-acl-test");
    ASSERT_TRUE(dir.ok());
    dir_ = *dir;
  }
  void TearDown() override {
    unsetenv("HONE_REDIS_USER");
    unsetenv("HONE_REDIS_PASSWORD");
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  RedisClientOptions Anonymous() const {
    RedisClientOptions o = server_->client_options();
    o.user.clear();
    o.password.clear();
    return o;
  }

  std::string AuthFile(const std::string& text, mode_t mode = 0600) {
    fs::path f = dir_ / ("auth" + std::to_string(files_++));
    EXPECT_TRUE(WriteFileAtomic(f, text).ok());
    chmod(f.c_str(), mode);
    return f.string();
  }

  std::unique_ptr<TestRedisServer> server_;
  fs::path dir_;
  int files_ = 0;
};

EvalJob Job(const std::string& id) {
  EvalJob j;
  j.id = id;
  j.problem_name = "fixture_add";
  j.candidate_code = "int x;";
  j.candidate_kind = "cpp";
  return j;
}

TEST_F(RedisAclTest, TheRightCredentialsRunTheQueue) {
  auto q = RedisJobQueue::Open(server_->client_options(), {});
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_EQ(*(*q)->Submit(Job("a")), SubmitOutcome::kCreated);
  auto lease = (*q)->Take("w", 0ms);
  ASSERT_TRUE(lease.ok() && *lease) << lease.status().message();
  EvalResult r;
  r.id = "a";
  r.status = "passed";
  EXPECT_TRUE(*(*q)->Complete(**lease, r));
  EXPECT_EQ((*(*q)->GetResult("a"))->status, "passed");
}

TEST_F(RedisAclTest, AWrongPasswordIsRefusedNamingTheUserNotThePassword) {
  RedisClientOptions o = server_->client_options();
  o.password = "not-the-password";
  auto q = RedisJobQueue::Open(o, {});
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), StatusCode::kInvalidInput) << "never waited out as an outage";
  EXPECT_NE(q.status().message().find("refused user 'hone-queue'"), std::string::npos)
      << q.status().message();
  EXPECT_EQ(q.status().message().find("not-the-password"), std::string::npos);
}

TEST_F(RedisAclTest, AClientWithoutCredentialsCannotWriteAResult) {
  auto q = RedisJobQueue::Open(server_->client_options(), {});
  ASSERT_TRUE(q.ok());
  ASSERT_EQ(*(*q)->Submit(Job("target")), SubmitOutcome::kCreated);
  RedisClient forger(Anonymous());
  auto set = forger.Command({"SET", "hone:result:target", R"({"id":"target","score":1})", "NX"});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_TRUE(set->error()) << "an anonymous write was accepted";
  EXPECT_NE(set->str.find("NOAUTH"), std::string::npos) << set->str;
  EXPECT_FALSE(*(*q)->GetResult("target")) << "no result was forged";
  auto anonymous = RedisJobQueue::Open(Anonymous(), {});
  ASSERT_FALSE(anonymous.ok()) << "nor can it open the queue";
  // And it is told what it lacks.
  EXPECT_NE(anonymous.status().message().find("NOAUTH"), std::string::npos)
      << anonymous.status().message();
  EXPECT_NE(anonymous.status().message().find("--redis-auth"), std::string::npos)
      << anonymous.status().message();
}

TEST_F(RedisAclTest, WorkerAndServeRefuseAWrongPasswordWithExitTwo) {
  std::string wrong = AuthFile(std::string(kUser) + " wrong-password\n");
  std::string problems = (testing::SourceDir() / "tests/integration").string();
  auto worker = RunHone({"worker", "--backend", "cpu", "--redis", server_->address(),
                         "--redis-auth", wrong, "--problems", problems, "--connect-timeout", "0"});
  EXPECT_EQ(worker.exit_code, 2) << worker.output;
  EXPECT_NE(worker.output.find("refused user 'hone-queue'"), std::string::npos) << worker.output;
  EXPECT_EQ(worker.output.find("wrong-password"), std::string::npos) << worker.output;

  setenv("HONE_REDIS_USER", kUser, 1);
  setenv("HONE_REDIS_PASSWORD", "also-wrong", 1);
  unsetenv("HONE_SERVE_TOKEN");
  auto serve =
      RunHone({"serve", "--port", "0", "--redis", server_->address(), "--connect-timeout", "0"});
  EXPECT_EQ(serve.exit_code, 2) << serve.output;
  EXPECT_NE(serve.output.find("refused"), std::string::npos) << serve.output;
}

TEST_F(RedisAclTest, AWorkerWithTheRightFileTakesAJob) {
  auto q = RedisJobQueue::Open(server_->client_options(), {});
  ASSERT_TRUE(q.ok());
  EvalJob job = Job("served");
  job.candidate_code =
      *ReadFile(testing::SourceDir() / "tests/adversarial/cpu/correct.cpp") + "// acl\n";
  ASSERT_EQ(*(*q)->Submit(job), SubmitOutcome::kCreated);
  std::string right =
      AuthFile(std::string("# the queue's user\n") + kUser + " " + kPassword + "\n");
  auto worker =
      RunHone({"worker", "--backend", "cpu", "--redis", server_->address(), "--redis-auth", right,
               "--problems", (testing::SourceDir() / "tests/integration").string(), "--max-jobs",
               "1", "--no-time", "--json"});
  EXPECT_EQ(worker.exit_code, 0) << worker.output;
  auto result = (*q)->GetResult("served");
  ASSERT_TRUE(result.ok() && *result) << worker.output;
  EXPECT_FALSE((*result)->infra_error()) << (*result)->error_msg;
}

TEST_F(RedisAclTest, AnAuthFileOthersCanReadIsRefused) {
  std::string open = AuthFile(std::string(kUser) + " " + kPassword + "\n", 0644);
  auto worker = RunHone({"worker", "--backend", "cpu", "--redis", server_->address(),
                         "--redis-auth", open, "--problems", dir_.string()});
  EXPECT_EQ(worker.exit_code, 2) << worker.output;
  EXPECT_NE(worker.output.find("chmod 600"), std::string::npos) << worker.output;
}

}  // namespace
}  // namespace hone
