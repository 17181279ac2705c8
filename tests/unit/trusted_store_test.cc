// The host store's reads in place (TrustedStore's defaults): the same
// results as a capture and its comparison.
#include "run/trusted_store.h"

#include <gtest/gtest.h>

#include <vector>

#include "process/shared_arena.h"

namespace hone {
namespace {

TEST(HostTrustedStoreTest, ComparesAndMeasuresOutputsWhereTheyLie) {
  auto store = CreateHostTrustedStore();
  auto arena = SharedArena::Create(1 << 20).value();
  std::vector<float> expected(1000), actual(1000);
  std::vector<double> ref(1000);
  for (int i = 0; i < 1000; ++i) {
    expected[i] = actual[i] = 0.5f * static_cast<float>(i);
    ref[i] = 0.5 * i;
  }
  actual[7] += 1.0f;  // outside any tolerance below
  const size_t offset = 4096;
  arena->Write(offset, actual.data(), actual.size() * sizeof(float));
  auto e = store->Upload(expected.data(), HONE_F32, 1000);
  auto r = store->Upload(ref.data(), HONE_F64, 1000);
  Tolerance tol{1e-3, 1e-3, 1e-5};

  Mismatch m = store->CompareInArena(*arena, offset, e, tol);
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.num_bad, 1);
  EXPECT_EQ(m.first_bad, 7);
  auto captured = store->Capture(*arena, offset, HONE_F32, 1000);
  EXPECT_EQ(store->RelativeL2InArena(*arena, offset, HONE_F32, r), store->RelativeL2(captured, r));
  EXPECT_GT(store->RelativeL2InArena(*arena, offset, HONE_F32, r), 0);

  arena->Write(offset, expected.data(), expected.size() * sizeof(float));
  EXPECT_TRUE(store->CompareInArena(*arena, offset, e, tol).ok);
  EXPECT_EQ(store->RelativeL2InArena(*arena, offset, HONE_F32, r), 0);
}

}  // namespace
}  // namespace hone
