// The CUDA TrustedStore against the host store: the same tensors, planted
// errors and conversions must give the same results on both (label "gpu";
// skipped without a GPU).
#include "run/trusted_store.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/rng.h"
#include "cuda/cuda_arena.h"
#include "cuda/cuda_trusted_store.h"
#include "cuda/gpu.h"
#include "gpu/require_gpu.h"
#include "process/shared_arena.h"
#include "task/distribution.h"
#include "task/sampler.h"

namespace hone {
namespace {

struct Stores {
  std::unique_ptr<TrustedStore> host, gpu;
  std::unique_ptr<Arena> host_arena, gpu_arena;
};

constexpr size_t kArenaBytes = 64 << 20;

Stores MakeStores() {
  Stores s;
  s.host = CreateHostTrustedStore();
  s.gpu = CreateCudaTrustedStore(0).value();
  s.host_arena = SharedArena::Create(kArenaBytes).value();
  s.gpu_arena = CudaArena::Create(kArenaBytes, 0).value();
  return s;
}

// Random values of dtype t, as raw bytes.
std::vector<char> RandomBytes(Dtype t, int64_t n, uint64_t seed) {
  std::vector<char> out(static_cast<size_t>(n) * DtypeSize(t));
  Rng rng(seed, 0);
  for (int64_t i = 0; i < n; ++i)
    StoreFromDouble(out.data(), t, static_cast<size_t>(i),
                    t == HONE_BOOL ? (rng.Uniform() < 0.5) : rng.Uniform() * 8 - 4);
  return out;
}

void ExpectSameMismatch(const Mismatch& h, const Mismatch& g) {
  EXPECT_EQ(h.ok, g.ok);
  EXPECT_EQ(h.checked, g.checked);
  EXPECT_EQ(h.num_bad, g.num_bad);
  EXPECT_EQ(h.nan_or_inf, g.nan_or_inf);
  EXPECT_EQ(h.first_bad, g.first_bad);
  EXPECT_EQ(h.worst, g.worst);
  EXPECT_DOUBLE_EQ(h.expected_at_first, g.expected_at_first);
  if (!std::isnan(h.actual_at_first)) {
    EXPECT_DOUBLE_EQ(h.actual_at_first, g.actual_at_first);
  }
  EXPECT_DOUBLE_EQ(h.max_abs_err, g.max_abs_err);
  EXPECT_DOUBLE_EQ(h.max_rel_err, g.max_rel_err);
}

class StoreDtypeTest : public ::testing::TestWithParam<Dtype> {};

TEST_P(StoreDtypeTest, ComparesLikeTheHost) {
  REQUIRE_GPU();
  Dtype t = GetParam();
  Stores s = MakeStores();
  // Large enough for many thread blocks, with a ragged last one.
  const int64_t n = 3'000'017;
  std::vector<char> expected = RandomBytes(t, n, 1);
  std::vector<char> actual = expected;
  // Planted errors, out of index order so "first" and "worst" are tested.
  const int64_t bad[] = {2'999'999, 17, 1'500'000, 4096};
  for (size_t k = 0; k < std::size(bad); ++k) {
    double v = LoadAsDouble(expected.data(), t, static_cast<size_t>(bad[k]));
    StoreFromDouble(actual.data(), t, static_cast<size_t>(bad[k]),
                    t == HONE_BOOL ? 1 - v : v + 0.5 * static_cast<double>(k + 1));
  }
  if (IsFloating(t))
    StoreFromDouble(actual.data(), t, 123'457, std::numeric_limits<double>::quiet_NaN());
  if (t == HONE_BOOL) actual[99] = 7;  // neither true nor false

  Tolerance tol{1e-3, 1e-3, 1e-5};
  for (bool same : {true, false}) {
    const std::vector<char>& a = same ? expected : actual;
    auto ha = s.host->Upload(a.data(), t, n), he = s.host->Upload(expected.data(), t, n);
    auto ga = s.gpu->Upload(a.data(), t, n), ge = s.gpu->Upload(expected.data(), t, n);
    Mismatch hm = s.host->Compare(ha, he, tol), gm = s.gpu->Compare(ga, ge, tol);
    ASSERT_TRUE(s.gpu->status().ok()) << s.gpu->status().message();
    EXPECT_EQ(hm.ok, same);
    ExpectSameMismatch(hm, gm);
    int64_t hf, gf;
    EXPECT_EQ(s.host->CountDifferent(ha, he, &hf), s.gpu->CountDifferent(ga, ge, &gf));
    EXPECT_EQ(hf, gf);
    // The same read where it lies in an arena, without a copy.
    s.host_arena->Write(256, a.data(), a.size());
    s.gpu_arena->Write(256, a.data(), a.size());
    ExpectSameMismatch(hm, s.host->CompareInArena(*s.host_arena, 256, he, tol));
    ExpectSameMismatch(hm, s.gpu->CompareInArena(*s.gpu_arena, 256, ge, tol));
  }
  ASSERT_TRUE(s.gpu->status().ok()) << s.gpu->status().message();
}

INSTANTIATE_TEST_SUITE_P(Dtypes, StoreDtypeTest,
                         ::testing::Values(HONE_F32, HONE_F64, HONE_F16, HONE_BF16, HONE_I8,
                                           HONE_U8, HONE_I16, HONE_I32, HONE_I64, HONE_BOOL),
                         [](const auto& info) { return std::string(DtypeName(info.param)); });

TEST(CudaTrustedStoreTest, RestoresCapturesAndWidensThroughAnArena) {
  REQUIRE_GPU();
  Stores s = MakeStores();
  const int64_t n = 1'000'003;
  for (Dtype t : {HONE_F32, HONE_F16, HONE_BF16}) {
    std::vector<char> x = RandomBytes(t, n, 7);
    auto h = s.host->Upload(x.data(), t, n);
    auto g = s.gpu->Upload(x.data(), t, n);
    // Round trip through the arena, as itself and widened to float64.
    s.host->Restore(h, *s.host_arena, 256, t);
    s.gpu->Restore(g, *s.gpu_arena, 256, t);
    auto hb = s.host->Capture(*s.host_arena, 256, t, n);
    auto gb = s.gpu->Capture(*s.gpu_arena, 256, t, n);
    int64_t first;
    EXPECT_EQ(s.gpu->CountDifferent(g, gb, &first), 0);
    // The float64 copy goes past the arena's offset 256: read it back first.
    s.gpu->Restore(g, *s.gpu_arena, 256, t);
    std::vector<double> x64(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x64[i] = LoadAsDouble(x.data(), t, static_cast<size_t>(i));
    auto gx64 = s.gpu->Upload(x64.data(), HONE_F64, n);
    EXPECT_EQ(s.gpu->RelativeL2InArena(*s.gpu_arena, 256, t, gx64), 0);
    s.host->Restore(h, *s.host_arena, 0, HONE_F64);
    s.gpu->Restore(g, *s.gpu_arena, 0, HONE_F64);
    auto h64 = s.host->Capture(*s.host_arena, 0, HONE_F64, n);
    auto g64 = s.gpu->Capture(*s.gpu_arena, 0, HONE_F64, n);
    EXPECT_EQ(s.host->RelativeL2(hb, h64), 0);
    EXPECT_EQ(s.gpu->RelativeL2(gb, g64), 0);
    // Widened values equal the host's conversion bit for bit.
    std::vector<double> host64(static_cast<size_t>(n)), gpu64(static_cast<size_t>(n));
    s.host_arena->Read(0, host64.data(), n * sizeof(double));
    s.gpu_arena->Read(0, gpu64.data(), n * sizeof(double));
    EXPECT_EQ(host64, gpu64) << DtypeName(t);
    // A perturbed copy has the same relative L2 error on both.
    std::vector<char> y = x;
    for (int64_t i = 0; i < n; i += 97)
      StoreFromDouble(y.data(), t, static_cast<size_t>(i),
                      LoadAsDouble(y.data(), t, static_cast<size_t>(i)) * 1.01);
    double he = s.host->RelativeL2(s.host->Upload(y.data(), t, n), h64);
    double ge = s.gpu->RelativeL2(s.gpu->Upload(y.data(), t, n), g64);
    EXPECT_GT(he, 0);
    EXPECT_NEAR(he, ge, 1e-9 * he);
    s.gpu_arena->Write(n * sizeof(double) + 256, y.data(), y.size());
    EXPECT_NEAR(he, s.gpu->RelativeL2InArena(*s.gpu_arena, n * sizeof(double) + 256, t, g64),
                1e-9 * he);
    s.host->Clear();
    s.gpu->Clear();
  }
  ASSERT_TRUE(s.gpu->status().ok()) << s.gpu->status().message();
}

SamplerSpec Spec(const std::string& text, const std::vector<int64_t>& shape) {
  auto d = Distribution::Parse(text);
  EXPECT_TRUE(d.ok()) << d.status().message();
  auto spec = d->Compile(shape, Symbols{});
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return *spec;
}

TEST(CudaTrustedStoreTest, GeneratesTheHostsValues) {
  REQUIRE_GPU();
  Stores s = MakeStores();
  const std::vector<int64_t> shape = {37, 1001};  // many chunks, a ragged last one
  const int64_t n = 37 * 1001;
  struct Case {
    std::string dist;
    Dtype t;
  };
  // No transcendental functions: bit-identical on both.
  for (const Case& c : std::vector<Case>{{"uniform(-2, 3)", HONE_F32},
                                         {"uniform(-2, 3)", HONE_F64},
                                         {"uniform(-2, 3)", HONE_F16},
                                         {"uniform(-2, 3)", HONE_BF16},
                                         {"randint(-300, 300)", HONE_I8},
                                         {"randint(0, 1000)", HONE_I32},
                                         {"randint(0, 1000)", HONE_I64},
                                         {"bernoulli(0.3)", HONE_BOOL},
                                         {"constant(2.5)", HONE_F32},
                                         {"tril(uniform(0, 1))", HONE_F32},
                                         {"abs(triu(uniform(-1, 1)))", HONE_F16}}) {
    SamplerSpec spec = Spec(c.dist, shape);
    auto h = s.host->Generate(spec, c.t, n, 42, 7);
    auto g = s.gpu->Generate(spec, c.t, n, 42, 7);
    std::vector<char> host_bytes(static_cast<size_t>(n) * DtypeSize(c.t));
    s.host->Restore(h, *s.host_arena, 0, c.t);
    s.host_arena->Read(0, host_bytes.data(), host_bytes.size());
    auto from_host = s.gpu->Upload(host_bytes.data(), c.t, n);
    int64_t first;
    EXPECT_EQ(s.gpu->CountDifferent(g, from_host, &first), 0)
        << c.dist << " as " << DtypeName(c.t) << ", first difference at " << first;
  }
  // normal() uses log, sin and cos, whose last bit may differ on the GPU.
  SamplerSpec spec = Spec("normal(0.5, 3)", shape);
  std::vector<float> host_values(static_cast<size_t>(n));
  FillFromSampler(host_values.data(), HONE_F32, n, spec, 42, 7);
  auto g = s.gpu->Generate(spec, HONE_F32, n, 42, 7);
  Mismatch m =
      s.gpu->Compare(g, s.gpu->Upload(host_values.data(), HONE_F32, n), Tolerance{1e-6, 1e-6, 0});
  EXPECT_TRUE(m.ok) << m.num_bad << " differ, first at " << m.first_bad;
  ASSERT_TRUE(s.gpu->status().ok()) << s.gpu->status().message();
}

int64_t FreeDeviceBytes() {
  size_t free = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  return static_cast<int64_t>(free);
}

// A store that goes away gives its memory back to the device: the next
// evaluation plans its memory from what the device reports free, and a
// pool that kept a full-size problem's buffers made later problems "not fit".
TEST(CudaTrustedStoreTest, GivesItsMemoryBackWhenDestroyed) {
  REQUIRE_GPU();
  auto store = CreateCudaTrustedStore(0).value();
  const int64_t before = FreeDeviceBytes();
  const int64_t n = int64_t{1} << 28;  // 1 GiB of float32
  SamplerSpec spec = Spec("normal(0, 1)", {n});
  store->Generate(spec, HONE_F32, n, 1, 0);
  store->Generate(spec, HONE_F32, n, 2, 0);
  ASSERT_TRUE(store->status().ok()) << store->status().message();
  EXPECT_LT(FreeDeviceBytes(), before - (int64_t{3} << 30) / 2);
  store.reset();
  EXPECT_GT(FreeDeviceBytes(), before - (int64_t{64} << 20));
}

// The pool keeps freed tensors' memory; the oracle, in another process,
// cannot use it until the store lets it go.
TEST(CudaTrustedStoreTest, ReleasesCachedMemoryOnRequest) {
  REQUIRE_GPU();
  auto store = CreateCudaTrustedStore(0).value();
  const int64_t before = FreeDeviceBytes();
  const int64_t n = int64_t{1} << 28;  // 1 GiB of float32
  SamplerSpec spec = Spec("normal(0, 1)", {n});
  TrustedStore::Id kept = store->Generate(spec, HONE_F32, n / 4, 1, 0);
  TrustedStore::Id freed = store->Generate(spec, HONE_F32, n, 2, 0);
  store->Release(freed);
  ASSERT_TRUE(store->status().ok()) << store->status().message();
  store->ReleaseCached();
  EXPECT_GT(FreeDeviceBytes(), before - (int64_t{1} << 30) / 2);
  EXPECT_LT(FreeDeviceBytes(), before - (int64_t{1} << 30) / 8);  // the kept tensor stays
  EXPECT_TRUE(store->status().ok());
  (void)kept;
}

// A value set's shared buffers serve the next set of the same sizes, with
// the same handles (no cudaMalloc of gigabytes per set); a set of another
// size, or ReleaseCached, gives them back.
TEST(CudaTrustedStoreTest, ReusesSharedBuffersForTheNextSetOfTheirSize) {
  REQUIRE_GPU();
  auto store = CreateCudaTrustedStore(0).value();
  const int64_t before = FreeDeviceBytes();
  const int64_t n = int64_t{1} << 28;  // 1 GiB of float32
  std::string first, again, other;
  TrustedStore::Id a = store->AllocateShared(HONE_F32, n, &first).value();
  store->Release(a);
  EXPECT_LT(FreeDeviceBytes(), before - (int64_t{1} << 30) / 2) << "kept after its release";
  TrustedStore::Id b = store->AllocateShared(HONE_F32, n, &again).value();
  EXPECT_EQ(again, first) << "the same allocation, exported once";
  store->Release(b);
  store->ReleaseCached(/*keep_shared=*/true);
  EXPECT_LT(FreeDeviceBytes(), before - (int64_t{1} << 30) / 2) << "kept for the next set";
  TrustedStore::Id c = store->AllocateShared(HONE_F32, n / 4, &other).value();
  EXPECT_NE(other, first);
  EXPECT_GT(FreeDeviceBytes(), before - (int64_t{1} << 30) / 2) << "another size frees the kept";
  store->Release(c);
  store->ReleaseCached();
  EXPECT_GT(FreeDeviceBytes(), before - (int64_t{64} << 20));
  EXPECT_TRUE(store->status().ok()) << store->status().message();
}

}  // namespace
}  // namespace hone
