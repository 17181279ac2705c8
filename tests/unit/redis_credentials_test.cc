// Where the queue's Redis credentials come from: a file readable by its
// owner only, else the environment; never the command line.
#include "serve/redis_credentials.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "core/fs.h"

namespace hone {
namespace {

class RedisCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("HONE_REDIS_USER");
    unsetenv("HONE_REDIS_PASSWORD");
    dir_ = *MakeTempDir(fs::temp_directory_path(), "hone-cred-test");
  }
  void TearDown() override {
    unsetenv("HONE_REDIS_USER");
    unsetenv("HONE_REDIS_PASSWORD");
    fs::remove_all(dir_);
  }
  std::string File(const std::string& text, mode_t mode = 0600) {
    fs::path f = dir_ / "auth";
    EXPECT_TRUE(WriteFileAtomic(f, text).ok());
    chmod(f.c_str(), mode);
    return f.string();
  }
  fs::path dir_;
};

TEST_F(RedisCredentialsTest, AFileGivesAUserAndPasswordOrAPasswordAlone) {
  auto both = ReadRedisCredentials(File("# comment\n\n  queue  s3cret \n"));
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_EQ(both->user, "queue");
  EXPECT_EQ(both->password, "s3cret");
  auto alone = ReadRedisCredentials(File("s3cret\n"));
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->user, "");
  EXPECT_EQ(alone->password, "s3cret");
}

TEST_F(RedisCredentialsTest, BadFilesAreRefusedNamingTheFileNeverThePassword) {
  struct Case {
    std::string text;
    mode_t mode;
    std::string says;
  } cases[] = {
      {"queue s3cret\n", 0644, "chmod 600"},
      {"queue s3cret\n", 0640, "chmod 600"},
      {"# nothing\n\n", 0600, "holds no password"},
      {"queue s3cret extra\n", 0600, "expected one line"},
  };
  for (const auto& c : cases) {
    std::string f = File(c.text, c.mode);
    auto r = ReadRedisCredentials(f);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(r.status().message().find(f), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
    EXPECT_EQ(r.status().message().find("s3cret"), std::string::npos) << r.status().message();
  }
  auto missing = ReadRedisCredentials((dir_ / "none").string());
  EXPECT_FALSE(missing.ok());
}

TEST_F(RedisCredentialsTest, TheEnvironmentWhenNoFileIsNamed) {
  auto none = ReadRedisCredentials("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->password.empty()) << "no credentials: no AUTH";
  setenv("HONE_REDIS_USER", "queue", 1);
  EXPECT_FALSE(ReadRedisCredentials("").ok()) << "a user without a password is a mistake";
  setenv("HONE_REDIS_PASSWORD", "s3cret", 1);
  auto env = ReadRedisCredentials("");
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->user, "queue");
  EXPECT_EQ(env->password, "s3cret");
  auto options = RedisOptionsFromFlags("10.0.0.5:6380", "");
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->address.port, 6380);
  EXPECT_EQ(options->password, "s3cret");
  auto bad = RedisOptionsFromFlags("10.0.0.5:x", "");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--redis"), std::string::npos);
}

}  // namespace
}  // namespace hone
