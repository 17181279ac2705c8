#include "run/trusted_store.h"

#include <cstring>
#include <vector>

namespace hone {
namespace {

// The CPU backend's store: plain worker memory, checked with verify/compare.
class HostTrustedStore : public TrustedStore {
 public:
  Id Generate(const SamplerSpec& spec, Dtype t, int64_t n, uint64_t seed,
              uint64_t rng_stream) override {
    Buffer b = Make(t, n);
    FillFromSampler(b.bytes.data(), t, n, spec, seed, rng_stream);
    return Add(std::move(b));
  }
  Id Upload(const void* host, Dtype t, int64_t n) override {
    Buffer b = Make(t, n);
    std::memcpy(b.bytes.data(), host, b.bytes.size());
    return Add(std::move(b));
  }
  Id Capture(Arena& arena, size_t offset, Dtype t, int64_t n) override {
    Buffer b = Make(t, n);
    arena.Read(offset, b.bytes.data(), b.bytes.size());
    return Add(std::move(b));
  }
  void Restore(Id id, Arena& arena, size_t offset, Dtype as) override {
    const Buffer& b = Get(id);
    if (as == b.dtype) {
      arena.Write(offset, b.bytes.data(), b.bytes.size());
      return;
    }
    std::vector<char> converted(static_cast<size_t>(b.n) * DtypeSize(as));
    ConvertElements(b.bytes.data(), b.dtype, converted.data(), as, b.n);
    arena.Write(offset, converted.data(), converted.size());
  }
  Id Scaled(Id src, double factor) override {
    const Buffer& in = Get(src);
    Buffer b = Make(in.dtype, in.n);
    std::memcpy(b.bytes.data(), in.bytes.data(), b.bytes.size());
    if (IsFloating(b.dtype))
      for (int64_t i = 0; i < b.n; ++i)
        StoreFromDouble(b.bytes.data(), b.dtype, static_cast<size_t>(i),
                        LoadAsDouble(b.bytes.data(), b.dtype, static_cast<size_t>(i)) * factor);
    return Add(std::move(b));
  }
  void Release(Id id) override { buffers_.at(id) = Buffer{}; }
  void Clear() override { buffers_.clear(); }

  Mismatch Compare(Id actual, Id expected, const Tolerance& tol) override {
    const Buffer& a = Get(actual);
    const Buffer& e = Get(expected);
    HONE_CHECK(a.dtype == e.dtype && a.n == e.n, "comparing tensors of different types");
    return CompareElements(a.bytes.data(), e.bytes.data(), a.dtype, a.n, tol);
  }
  double RelativeL2(Id a_id, Id ref_id) override {
    const Buffer& a = Get(a_id);
    const Buffer& ref = Get(ref_id);
    HONE_CHECK(ref.dtype == HONE_F64 && a.n == ref.n, "the precision reference must be float64");
    return RelativeL2Error(a.bytes.data(), a.dtype,
                           reinterpret_cast<const double*>(ref.bytes.data()), a.n);
  }
  int64_t CountDifferent(Id a_id, Id b_id, int64_t* first) override {
    const Buffer& a = Get(a_id);
    const Buffer& b = Get(b_id);
    HONE_CHECK(a.dtype == b.dtype && a.n == b.n, "comparing tensors of different types");
    if (SameBytes(a.bytes.data(), b.bytes.data(), a.bytes.size())) {
      *first = -1;
      return 0;
    }
    return CountDifferentElements(a.bytes.data(), b.bytes.data(), a.dtype, a.n, first);
  }
  int64_t CountDifferentInArena(Id id, Arena& arena, size_t offset, int64_t* first) override {
    const Buffer& b = Get(id);
    Buffer now = Make(b.dtype, b.n);
    arena.Read(offset, now.bytes.data(), now.bytes.size());
    *first = -1;
    if (SameBytes(now.bytes.data(), b.bytes.data(), b.bytes.size())) return 0;
    return CountDifferentElements(now.bytes.data(), b.bytes.data(), b.dtype, b.n, first);
  }
  Status status() override { return Status::Ok(); }
  Dtype DtypeOf(Id id) const override { return Get(id).dtype; }
  int64_t NumelOf(Id id) const override { return Get(id).n; }

 private:
  struct Buffer {
    Dtype dtype = HONE_F32;
    int64_t n = 0;
    std::vector<char> bytes;
  };
  static Buffer Make(Dtype t, int64_t n) {
    return Buffer{t, n, std::vector<char>(static_cast<size_t>(n) * DtypeSize(t))};
  }
  Id Add(Buffer b) {
    buffers_.push_back(std::move(b));
    return buffers_.size() - 1;
  }
  const Buffer& Get(Id id) const {
    HONE_CHECK(id < buffers_.size(), "unknown trusted tensor");
    return buffers_[id];
  }
  std::vector<Buffer> buffers_;
};

}  // namespace

Mismatch TrustedStore::CompareInArena(Arena& arena, size_t offset, Id expected,
                                      const Tolerance& tol) {
  Id actual = Capture(arena, offset, DtypeOf(expected), NumelOf(expected));
  Mismatch m = Compare(actual, expected, tol);
  Release(actual);
  return m;
}

double TrustedStore::RelativeL2InArena(Arena& arena, size_t offset, Dtype t, Id ref) {
  Id actual = Capture(arena, offset, t, NumelOf(ref));
  double e = RelativeL2(actual, ref);
  Release(actual);
  return e;
}

std::unique_ptr<TrustedStore> CreateHostTrustedStore() {
  return std::unique_ptr<TrustedStore>(new HostTrustedStore());
}

}  // namespace hone
