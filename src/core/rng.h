// Deterministic random numbers for input generation (xoshiro256**).
// The same (seed, stream) gives the same sequence on every machine, so a
// failing case can be reproduced from the seed printed in its verdict.
// Usable in device code too (the GPU generates inputs with the same streams;
// its log/sin/cos may round differently in the last bit).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/host_device.h"

namespace hone {

class Rng {
 public:
  HONE_HOST_DEVICE Rng(uint64_t seed, uint64_t stream) {
    uint64_t x = seed * 0x9e3779b97f4a7c15ull ^ (stream + 0x632be59bd9b4e019ull);
    for (int i = 0; i < 4; ++i) s_[i] = SplitMix(x);
  }

  HONE_HOST_DEVICE uint64_t NextU64() {
    uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  HONE_HOST_DEVICE double Uniform() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  HONE_HOST_DEVICE double Normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u = 0;
    while (u == 0) u = Uniform();
    double v = Uniform();
    double r = sqrt(-2.0 * log(u));
    spare_ = r * sin(2 * M_PI * v);
    has_spare_ = true;
    return r * cos(2 * M_PI * v);
  }

 private:
  HONE_HOST_DEVICE static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  HONE_HOST_DEVICE static uint64_t SplitMix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace hone
