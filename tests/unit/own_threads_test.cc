// OwnThreadNames: one name per thread of this process (src/sandbox/own_threads.h).
#include "sandbox/own_threads.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace hone {
namespace {

TEST(OwnThreadsTest, AThreadStartedIsListedByItsName) {
  const size_t before = sandbox::OwnThreadNames().size();
  ASSERT_GE(before, 1u);
  std::mutex mu;
  std::condition_variable cv;
  bool named = false, done = false;
  std::thread t([&] {
    pthread_setname_np(pthread_self(), "hone-own-test");
    std::unique_lock lock(mu);
    named = true;
    cv.notify_all();
    cv.wait(lock, [&] { return done; });
  });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return named; });
  }
  auto names = sandbox::OwnThreadNames();
  EXPECT_EQ(names.size(), before + 1);
  EXPECT_NE(std::find(names.begin(), names.end(), "hone-own-test"), names.end());
  {
    std::lock_guard lock(mu);
    done = true;
  }
  cv.notify_all();
  t.join();
}

TEST(OwnThreadsTest, NamesAreListedAsAMessageListsThem) {
  EXPECT_EQ(sandbox::NameList({}), "");
  EXPECT_EQ(sandbox::NameList({"hone-sandbox"}), "hone-sandbox");
  EXPECT_EQ(sandbox::NameList({"hone-sandbox", "cuda00001400006"}),
            "hone-sandbox, cuda00001400006");
}

}  // namespace
}  // namespace hone
