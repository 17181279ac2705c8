#include "backends/testdev/testdev_store.h"

namespace hone::testing {
namespace {

class TestDevStore : public TrustedStore {
 public:
  explicit TestDevStore(std::shared_ptr<TestDevCounts> counts)
      : host_(CreateHostTrustedStore()), counts_(std::move(counts)) {
    ++counts_->stores;
  }

  Id Generate(const SamplerSpec& spec, Dtype t, int64_t n, uint64_t seed,
              uint64_t rng_stream) override {
    return host_->Generate(spec, t, n, seed, rng_stream);
  }
  Id Upload(const void* host, Dtype t, int64_t n) override { return host_->Upload(host, t, n); }
  Id Capture(Arena& arena, size_t offset, Dtype t, int64_t n) override {
    return host_->Capture(arena, offset, t, n);
  }
  void Restore(Id id, Arena& arena, size_t offset, Dtype as) override {
    host_->Restore(id, arena, offset, as);
  }
  Id Scaled(Id src, double factor) override { return host_->Scaled(src, factor); }
  void Release(Id id) override { host_->Release(id); }
  void Clear() override { host_->Clear(); }
  Mismatch Compare(Id actual, Id expected, const Tolerance& tol) override {
    ++counts_->compares;
    return host_->Compare(actual, expected, tol);
  }
  double RelativeL2(Id a, Id ref) override { return host_->RelativeL2(a, ref); }
  int64_t CountDifferent(Id a, Id b, int64_t* first) override {
    return host_->CountDifferent(a, b, first);
  }
  int64_t CountDifferentInArena(Id id, Arena& arena, size_t offset, int64_t* first) override {
    return host_->CountDifferentInArena(id, arena, offset, first);
  }
  Mismatch CompareInArena(Arena& arena, size_t offset, Id expected, const Tolerance& tol) override {
    ++counts_->compares;
    return host_->CompareInArena(arena, offset, expected, tol);
  }
  double RelativeL2InArena(Arena& arena, size_t offset, Dtype t, Id ref) override {
    return host_->RelativeL2InArena(arena, offset, t, ref);
  }
  Status status() override { return host_->status(); }
  Dtype DtypeOf(Id id) const override { return host_->DtypeOf(id); }
  int64_t NumelOf(Id id) const override { return host_->NumelOf(id); }

 private:
  std::unique_ptr<TrustedStore> host_;
  std::shared_ptr<TestDevCounts> counts_;
};

}  // namespace

std::unique_ptr<TrustedStore> CreateTestDevStore(std::shared_ptr<TestDevCounts> counts) {
  return std::make_unique<TestDevStore>(std::move(counts));
}

}  // namespace hone::testing
