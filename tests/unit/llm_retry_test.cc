#include <gtest/gtest.h>

#include "llm/retry.h"

namespace hone {
namespace {

TEST(RetryTest, RetryableStatuses) {
  for (int s : {408, 429, 500, 502, 503, 504, 529}) EXPECT_TRUE(IsRetryableStatus(s)) << s;
  for (int s : {200, 301, 400, 401, 403, 404, 422}) EXPECT_FALSE(IsRetryableStatus(s)) << s;
}

TEST(RetryTest, BackoffDoublesUpToTheCap) {
  RetryPolicy p;
  p.base_delay_seconds = 1;
  p.max_delay_seconds = 10;
  p.jitter = 0;
  EXPECT_EQ(BackoffSeconds(p, 1, 0), 1);
  EXPECT_EQ(BackoffSeconds(p, 2, 0), 2);
  EXPECT_EQ(BackoffSeconds(p, 3, 0), 4);
  EXPECT_EQ(BackoffSeconds(p, 4, 0), 8);
  EXPECT_EQ(BackoffSeconds(p, 5, 0), 10);
  EXPECT_EQ(BackoffSeconds(p, 60, 0), 10);
}

TEST(RetryTest, JitterSpreadsBothWays) {
  RetryPolicy p;
  p.base_delay_seconds = 2;
  p.jitter = 0.25;
  EXPECT_DOUBLE_EQ(BackoffSeconds(p, 1, -1), 1.5);
  EXPECT_DOUBLE_EQ(BackoffSeconds(p, 1, 1), 2.5);
  EXPECT_DOUBLE_EQ(BackoffSeconds(p, 1, 7), 2.5);  // spread clamped to [-1, 1]
}

TEST(RetryTest, RetryAfterInSecondsMillisecondsOrHttpDate) {
  // Sun, 06 Nov 1994 08:49:37 GMT
  const std::time_t now = 784111777;
  using H = std::map<std::string, std::string>;
  EXPECT_EQ(RetryAfterSeconds(H{{"retry-after", "2"}}, now), 2.0);
  EXPECT_EQ(RetryAfterSeconds(H{{"retry-after", "1.5"}}, now), 1.5);
  EXPECT_EQ(RetryAfterSeconds(H{{"retry-after-ms", "250"}, {"retry-after", "9"}}, now), 0.25);
  EXPECT_EQ(RetryAfterSeconds(H{{"retry-after", "Sun, 06 Nov 1994 08:50:07 GMT"}}, now), 30.0);
  EXPECT_EQ(RetryAfterSeconds(H{{"retry-after", "Sun, 06 Nov 1994 08:00:00 GMT"}}, now), 0.0);
  EXPECT_EQ(RetryAfterSeconds(H{{"retry-after", "soon"}}, now), std::nullopt);
  EXPECT_EQ(RetryAfterSeconds(H{{"retry-after", "-3"}}, now), std::nullopt);
  EXPECT_EQ(RetryAfterSeconds(H{}, now), std::nullopt);
}

}  // namespace
}  // namespace hone
