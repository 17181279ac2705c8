#include "cuda/cuda_trusted_store.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "cuda/cuda_arena.h"
#include "cuda/device_compare.h"
#include "cuda/device_fill.h"

namespace hone {
namespace {

class CudaTrustedStore : public TrustedStore {
 public:
  CudaTrustedStore(int device, cudaStream_t stream) : device_(device), stream_(stream) {}
  ~CudaTrustedStore() override {
    cudaSetDevice(device_);
    Clear();
    // The pool keeps freed memory for this evaluation's next shape case
    // (CreateCudaTrustedStore); the next evaluation plans its memory from
    // what the device has free, so the pool gives it all back now.
    ReleaseCached();
    cudaStreamDestroy(stream_);
  }

  void ReleaseCached(bool keep_shared = false) override {
    // Frees queued on the stream return to the pool only once they run.
    Note(cudaStreamSynchronize(stream_), "the worker's stream");
    if (!keep_shared) FreeSpareShared();
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, device_) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
  }

  Id Generate(const SamplerSpec& spec, Dtype t, int64_t n, uint64_t seed,
              uint64_t rng_stream) override {
    Id id = Allocate(t, n);
    if (error_.ok()) Keep(FillOnDevice(buffers_[id].data, t, n, spec, seed, rng_stream, stream_));
    return id;
  }
  Id Upload(const void* host, Dtype t, int64_t n) override {
    Id id = Allocate(t, n);
    Note(cudaMemcpyAsync(buffers_[id].data, host, Bytes(buffers_[id]), cudaMemcpyHostToDevice,
                         stream_),
         "uploading a tensor");
    // `host` is pageable memory the caller may reuse at once.
    Note(cudaStreamSynchronize(stream_), "uploading a tensor");
    return id;
  }

  Id Capture(Arena& arena, size_t offset, Dtype t, int64_t n) override {
    CudaArena& a = AsCuda(arena);
    Id id = Allocate(t, n);
    HONE_CHECK(offset + Bytes(buffers_[id]) <= a.size(), "capture outside the arena");
    // The arena's own stream may still be poisoning other buffers.
    Note(cudaStreamSynchronize(static_cast<cudaStream_t>(a.stream())), "the arena's stream");
    Note(cudaMemcpyAsync(buffers_[id].data, a.data() + offset, Bytes(buffers_[id]),
                         cudaMemcpyDeviceToDevice, stream_),
         "copying out of the arena");
    return id;
  }

  void Restore(Id id, Arena& arena, size_t offset, Dtype as) override {
    CudaArena& a = AsCuda(arena);
    const Buffer& b = Get(id);
    size_t bytes = static_cast<size_t>(b.n) * DtypeSize(as);
    HONE_CHECK(offset + bytes <= a.size(), "restore outside the arena");
    if (as == b.dtype) {
      Note(cudaMemcpyAsync(a.data() + offset, b.data, bytes, cudaMemcpyDeviceToDevice, stream_),
           "restoring inputs");
    } else {
      HONE_CHECK(as == HONE_F64, "tensors are restored as themselves or as float64");
      Keep(WidenToDoubleOnDevice(b.data, b.dtype, reinterpret_cast<double*>(a.data() + offset), b.n,
                                 stream_));
    }
    // The next sandbox call reads these bytes; it is ordered only after the
    // arena's stream, so finish here.
    Note(cudaStreamSynchronize(stream_), "restoring inputs");
  }

  Id Scaled(Id src, double factor) override {
    Buffer in = Get(src);
    Id id = Allocate(in.dtype, in.n);
    if (!error_.ok()) return id;
    if (IsFloating(in.dtype))
      Keep(ScaleOnDevice(in.data, buffers_[id].data, in.dtype, in.n, factor, stream_));
    else
      Note(
          cudaMemcpyAsync(buffers_[id].data, in.data, Bytes(in), cudaMemcpyDeviceToDevice, stream_),
          "copying a tensor");
    return id;
  }

  std::optional<Id> AllocateShared(Dtype t, int64_t n, std::string* ipc) override {
    // The pool's own work must be done before another process writes here.
    Note(cudaStreamSynchronize(stream_), "the worker's stream");
    Buffer b = TakeSpareShared(t, n);
    if (!b.data) {
      FreeSpareShared();  // another shape: what is kept would sit beside it
      b = Buffer{t, n, nullptr, /*shared=*/true};
      // Plain cudaMalloc: stream-ordered pool memory cannot be exported.
      Note(cudaMalloc(&b.data, std::max<size_t>(Bytes(b), 1)), "allocating worker memory");
      cudaIpcMemHandle_t h{};
      if (error_.ok()) Note(cudaIpcGetMemHandle(&h, b.data), "exporting worker memory");
      char hex[3];
      for (size_t i = 0; i < sizeof h; ++i) {
        std::snprintf(hex, sizeof hex, "%02x", reinterpret_cast<unsigned char*>(&h)[i]);
        b.ipc += hex;
      }
    }
    *ipc = b.ipc;
    buffers_.push_back(b);
    return buffers_.size() - 1;
  }

  void Release(Id id) override {
    Buffer& b = buffers_.at(id);
    if (b.data && b.shared) {
      // Kept for the next value set of this size until ReleaseCached: a
      // cudaMalloc of gigabytes beside a full device costs tens of ms.
      Note(cudaStreamSynchronize(stream_), "the worker's stream");
      spare_shared_.push_back(b);
    } else if (b.data) {
      cudaFreeAsync(b.data, stream_);
    }
    b = Buffer{};
  }

  void Clear() override {
    for (Id id = 0; id < buffers_.size(); ++id) Release(id);
    buffers_.clear();
  }

  Mismatch Compare(Id actual, Id expected, const Tolerance& tol) override {
    const Buffer& a = Get(actual);
    const Buffer& e = Get(expected);
    HONE_CHECK(a.dtype == e.dtype && a.n == e.n, "comparing tensors of different types");
    if (!error_.ok()) return Mismatch{};
    auto m = CompareElementsOnDevice(a.data, e.data, a.dtype, a.n, tol, stream_);
    return Keep(std::move(m), Mismatch{});
  }

  double RelativeL2(Id a_id, Id ref_id) override {
    const Buffer& a = Get(a_id);
    const Buffer& ref = Get(ref_id);
    HONE_CHECK(ref.dtype == HONE_F64 && a.n == ref.n, "the precision reference must be float64");
    if (!error_.ok()) return 0;
    auto r = RelativeL2ErrorOnDevice(a.data, a.dtype, static_cast<const double*>(ref.data), a.n,
                                     stream_);
    return Keep(std::move(r), 0.0);
  }

  int64_t CountDifferent(Id a_id, Id b_id, int64_t* first) override {
    const Buffer& a = Get(a_id);
    const Buffer& b = Get(b_id);
    HONE_CHECK(a.dtype == b.dtype && a.n == b.n, "comparing tensors of different types");
    *first = -1;
    if (!error_.ok()) return 0;
    auto r = CountDifferentElementsOnDevice(a.data, b.data, a.dtype, a.n, first, stream_);
    return Keep(std::move(r), int64_t{0});
  }

  int64_t CountDifferentInArena(Id id, Arena& arena, size_t offset, int64_t* first) override {
    const Buffer& b = Get(id);
    *first = -1;
    const void* now = InArena(arena, offset, Bytes(b));
    if (!error_.ok()) return 0;
    auto r = CountDifferentElementsOnDevice(now, b.data, b.dtype, b.n, first, stream_);
    return Keep(std::move(r), int64_t{0});
  }

  Mismatch CompareInArena(Arena& arena, size_t offset, Id expected_id,
                          const Tolerance& tol) override {
    const Buffer& e = Get(expected_id);
    const void* actual = InArena(arena, offset, Bytes(e));
    if (!error_.ok()) return Mismatch{};
    return Keep(CompareElementsOnDevice(actual, e.data, e.dtype, e.n, tol, stream_), Mismatch{});
  }

  double RelativeL2InArena(Arena& arena, size_t offset, Dtype t, Id ref_id) override {
    const Buffer& ref = Get(ref_id);
    HONE_CHECK(ref.dtype == HONE_F64, "the precision reference must be float64");
    const void* a = InArena(arena, offset, static_cast<size_t>(ref.n) * DtypeSize(t));
    if (!error_.ok()) return 0;
    return Keep(RelativeL2ErrorOnDevice(a, t, static_cast<const double*>(ref.data), ref.n, stream_),
                0.0);
  }

  Status status() override {
    if (error_.ok()) Note(cudaStreamSynchronize(stream_), "the worker's stream");
    return error_;
  }

  Dtype DtypeOf(Id id) const override { return Get(id).dtype; }
  int64_t NumelOf(Id id) const override { return Get(id).n; }

 private:
  struct Buffer {
    Dtype dtype = HONE_F32;
    int64_t n = 0;
    void* data = nullptr;
    bool shared = false;  // cudaMalloc'd and exported (AllocateShared)
    std::string ipc{};    // shared: its exported handle, hex
  };
  static size_t Bytes(const Buffer& b) { return static_cast<size_t>(b.n) * DtypeSize(b.dtype); }

  // The arena's bytes at `offset`, once its stream (which may still be
  // poisoning other buffers) has finished.
  const char* InArena(Arena& arena, size_t offset, size_t bytes) {
    CudaArena& a = AsCuda(arena);
    HONE_CHECK(offset + bytes <= a.size(), "reading outside the arena");
    Note(cudaStreamSynchronize(static_cast<cudaStream_t>(a.stream())), "the arena's stream");
    return a.data() + offset;
  }

  static CudaArena& AsCuda(Arena& arena) {
    auto* a = dynamic_cast<CudaArena*>(&arena);
    HONE_CHECK(a != nullptr, "the CUDA store works with CUDA arenas only");
    return *a;
  }

  Id Allocate(Dtype t, int64_t n) {
    Buffer b{t, n, nullptr};
    // Stream-ordered: the pool keeps freed memory for the next case's tensors.
    Note(cudaMallocAsync(&b.data, std::max<size_t>(Bytes(b), 1), stream_),
         "allocating worker memory");
    buffers_.push_back(b);
    return buffers_.size() - 1;
  }

  void FreeSpareShared() {
    for (const Buffer& b : spare_shared_) cudaFree(b.data);
    spare_shared_.clear();
  }

  // A released shared buffer of exactly this size, or an empty Buffer.
  Buffer TakeSpareShared(Dtype t, int64_t n) {
    const size_t bytes = static_cast<size_t>(n) * DtypeSize(t);
    for (size_t i = 0; i < spare_shared_.size(); ++i) {
      if (Bytes(spare_shared_[i]) != bytes) continue;
      Buffer b = spare_shared_[i];
      spare_shared_.erase(spare_shared_.begin() + static_cast<std::ptrdiff_t>(i));
      b.dtype = t;
      b.n = n;
      return b;
    }
    return Buffer{};
  }

  const Buffer& Get(Id id) const {
    HONE_CHECK(id < buffers_.size(), "unknown trusted tensor");
    return buffers_[id];
  }

  void Note(cudaError_t e, const char* what) {
    if (e != cudaSuccess && error_.ok())
      error_ = Status::Unavailable(std::string("the worker's GPU failed ") + what + ": " +
                                   cudaGetErrorString(e));
  }
  void Keep(Status st) {
    if (!st.ok() && error_.ok()) error_ = st;
  }
  template <typename T>
  T Keep(Result<T> r, T fallback) {
    if (r.ok()) return *r;
    Keep(r.status());
    return fallback;
  }

  int device_;
  cudaStream_t stream_;
  std::vector<Buffer> buffers_;
  std::vector<Buffer> spare_shared_;  // released shared buffers, until ReleaseCached
  Status error_;
};

}  // namespace

Result<std::unique_ptr<TrustedStore>> CreateCudaTrustedStore(int device) {
  if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
    return Status::Unavailable(std::string("cudaSetDevice: ") + cudaGetErrorString(e));
  // Keep freed allocations in the device's pool: every shape case allocates
  // tensors of the same sizes again.
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
    uint64_t keep = UINT64_MAX;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  }
  cudaStream_t stream;
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess)
    return Status::Unavailable(std::string("cudaStreamCreate: ") + cudaGetErrorString(e));
  return std::unique_ptr<TrustedStore>(new CudaTrustedStore(device, stream));
}

}  // namespace hone
