// The baseline cache: what one evaluation stores, a later one reads back,
// keyed by everything a baseline's time depends on.
#include "compat/baseline_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace hone {
namespace {

std::filesystem::path FreshDir(const char* name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("hone-baseline-cache-" + std::string(name) + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

BaselineKey Key() { return {"task-hash", "NVIDIA H100 80GB HBM3", "2.11.0", "llc"}; }

Baselines Eager() {
  Baselines b;
  b.eager.available = true;
  b.eager.samples = {1e-3, 1.1e-3, 0.9e-3};
  b.eager.median = 1e-3;
  b.eager.warmup_calls = 4;
  b.eager.host_seconds_per_launch = 31e-6;
  b.eager.launches_per_call = 120;
  b.eager.held = false;
  b.compiled.reason = "not asked for";
  return b;
}

TEST(BaselineCacheTest, ReadsBackWhatItStored) {
  BaselineCache cache(FreshDir("roundtrip"));
  ASSERT_TRUE(cache.Store(Key(), Eager()).ok());
  auto b = cache.Lookup(Key());
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(b->cached);
  EXPECT_TRUE(b->eager.available);
  EXPECT_EQ(b->eager.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(b->eager.median, 1e-3);
  EXPECT_DOUBLE_EQ(b->eager.host_seconds_per_launch, 31e-6);
  EXPECT_DOUBLE_EQ(b->eager.launches_per_call, 120);
  EXPECT_FALSE(b->eager.held);
  EXPECT_FALSE(b->compiled.available);
  EXPECT_EQ(b->compiled.reason, "not asked for");
}

TEST(BaselineCacheTest, AnotherDeviceTorchOrFlushIsAMiss) {
  BaselineCache cache(FreshDir("keys"));
  ASSERT_TRUE(cache.Store(Key(), Eager()).ok());
  for (int field = 0; field < 4; ++field) {
    BaselineKey k = Key();
    std::string* parts[] = {&k.task_hash, &k.device, &k.torch_version, &k.flush};
    *parts[field] += "-other";
    EXPECT_FALSE(cache.Lookup(k).has_value()) << "field " << field;
  }
}

TEST(BaselineCacheTest, ADamagedEntryIsAMiss) {
  BaselineCache cache(FreshDir("damaged"));
  ASSERT_TRUE(cache.Store(Key(), Eager()).ok());
  std::ofstream(cache.PathFor(Key()), std::ios::trunc) << "{\"eager\": {\"avail";
  EXPECT_FALSE(cache.Lookup(Key()).has_value());
}

}  // namespace
}  // namespace hone
