// One input's value distribution, flattened so that the same code generates
// element values on the CPU and in a trusted GPU kernel.
//
// Values are drawn in chunks of kSamplerChunk elements; chunk c of a tensor
// draws from Rng(seed, (stream << 32) ^ c), in order, so the values depend
// only on (seed, stream), never on the number of threads. Plain data, no
// ownership; safe to copy into a kernel's arguments.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/dtype.h"
#include "core/host_device.h"
#include "core/rng.h"

namespace hone {

constexpr int64_t kSamplerChunk = 1024;

enum class SampleKind : int32_t {
  kUniform,
  kNormal,
  kRandint,
  kBernoulli,
  kConstant,
  kTril,
  kTriu,
  kAbs
};

struct SamplerSpec {
  static constexpr int kMaxDepth = 4;
  // kinds[0] is the outermost node ("tril" in "tril(normal(0, 1))"), the
  // last one the sampler that draws; wrappers only transform its value.
  int32_t depth = 0;
  SampleKind kinds[kMaxDepth] = {};
  double a[kMaxDepth] = {}, b[kMaxDepth] = {};  // each node's evaluated arguments
  int64_t rows = 1, cols = 1;                   // the last two axes, for tril and triu
};

HONE_HOST_DEVICE inline Rng ChunkRng(uint64_t seed, uint64_t stream, int64_t chunk) {
  return Rng(seed, (stream << 32) ^ static_cast<uint64_t>(chunk));
}

// The value of element `flat`, drawing from `rng` as the chunk advances.
// Explicit fma: nvcc would contract a + b * c on its own and g++ might not,
// and the two must round alike.
HONE_HOST_DEVICE inline double SampleNext(const SamplerSpec& s, Rng& rng, int64_t flat) {
  int base = s.depth - 1;
  double a = s.a[base], b = s.b[base], v = 0;
  switch (s.kinds[base]) {
    case SampleKind::kUniform:
      v = fma(b - a, rng.Uniform(), a);
      break;
    case SampleKind::kNormal:
      v = fma(b, rng.Normal(), a);
      break;
    case SampleKind::kRandint: {
      double lo = ceil(a), span = floor(b) - lo;
      v = lo + floor(rng.Uniform() * span);
      break;
    }
    case SampleKind::kBernoulli:
      v = rng.Uniform() < a ? 1.0 : 0.0;
      break;
    case SampleKind::kConstant:
      v = a;
      break;
    default:
      break;
  }
  for (int d = base - 1; d >= 0; --d) {
    if (s.kinds[d] == SampleKind::kAbs) {
      v = fabs(v);
      continue;
    }
    int64_t c = flat % s.cols, r = (flat / s.cols) % s.rows;
    bool keep = s.kinds[d] == SampleKind::kTril ? c <= r : c >= r;
    if (!keep) v = 0;
  }
  return v;
}

// Fills n elements of `data` (dtype t) on all cores of the host.
void FillFromSampler(void* data, Dtype t, int64_t n, const SamplerSpec& spec, uint64_t seed,
                     uint64_t stream);

}  // namespace hone
