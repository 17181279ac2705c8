#include "task/sampler.h"

#include <algorithm>

namespace hone {

void FillFromSampler(void* data, Dtype t, int64_t n, const SamplerSpec& spec, uint64_t seed,
                     uint64_t stream) {
  int64_t chunks = (n + kSamplerChunk - 1) / kSamplerChunk;
#pragma omp parallel for schedule(dynamic, 64) if (chunks > 16)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = c * kSamplerChunk, end = std::min(n, begin + kSamplerChunk);
    Rng rng = ChunkRng(seed, stream, c);
    if (t == HONE_F32) {
      float* out = static_cast<float*>(data);
      for (int64_t i = begin; i < end; ++i) out[i] = static_cast<float>(SampleNext(spec, rng, i));
    } else {
      for (int64_t i = begin; i < end; ++i)
        StoreFromDouble(data, t, static_cast<size_t>(i), SampleNext(spec, rng, i));
    }
  }
}

}  // namespace hone
