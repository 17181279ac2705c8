// Naive attention candidate: one query row at a time, scores kept in a row buffer, softmax
// normalization folded into the final division. Single-threaded, no intrinsics.
#include <hone/kernel.h>

#include <cmath>
#include <vector>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& qt = args->inputs[0];
  if (qt.dtype != HONE_F32) return 1;
  const float* q = static_cast<const float*>(qt.data);
  const float* k = static_cast<const float*>(args->inputs[1].data);
  const float* v = static_cast<const float*>(args->inputs[2].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t B = qt.shape[0], S = qt.shape[1], D = qt.shape[2];
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  std::vector<float> p(S);
  for (int64_t b = 0; b < B; ++b) {
    const float* kb = k + b * S * D;
    const float* vb = v + b * S * D;
    for (int64_t i = 0; i < S; ++i) {
      const float* qi = q + (b * S + i) * D;
      float* oi = out + (b * S + i) * D;
      float m = -INFINITY;
      for (int64_t j = 0; j < S; ++j) {
        float acc = 0.0f;
        for (int64_t e = 0; e < D; ++e) acc += qi[e] * kb[j * D + e];
        p[j] = acc * scale;
        if (p[j] > m) m = p[j];
      }
      float sum = 0.0f;
      for (int64_t j = 0; j < S; ++j) sum += (p[j] = std::exp(p[j] - m));
      for (int64_t e = 0; e < D; ++e) oi[e] = 0.0f;
      for (int64_t j = 0; j < S; ++j)
        for (int64_t e = 0; e < D; ++e) oi[e] += p[j] * vb[j * D + e];
      for (int64_t e = 0; e < D; ++e) oi[e] /= sum;
    }
  }
  return 0;
}
