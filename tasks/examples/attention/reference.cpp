// Reference for attention: single-head scaled dot-product attention without a mask, per batch:
//   out[b] = softmax(q[b] @ k[b]^T / sqrt(D)) @ v[b]
// computed the way an eager framework's math path does it: the full S x S score matrix of a
// batch, a row-wise softmax over it, then the product with v. Sums are accumulated in T.
#include <hone/kernel.h>

#include <cmath>
#include <vector>

template <typename T>
static void attention(const T* q, const T* k, const T* v, T* out, int64_t batches, int64_t s,
                      int64_t d) {
  const T scale = T(1) / std::sqrt(T(d));
  std::vector<T> p(s * s);  // scores, then probabilities, of one batch
  for (int64_t b = 0; b < batches; ++b) {
    const T* qb = q + b * s * d;
    const T* kb = k + b * s * d;
    const T* vb = v + b * s * d;
    T* ob = out + b * s * d;
    for (int64_t i = 0; i < s; ++i) {  // scores = q k^T / sqrt(D)
      for (int64_t j = 0; j < s; ++j) {
        T acc = 0;
        for (int64_t e = 0; e < d; ++e) acc += qb[i * d + e] * kb[j * d + e];
        p[i * s + j] = acc * scale;
      }
    }
    for (int64_t i = 0; i < s; ++i) {  // row-wise softmax
      T* row = p.data() + i * s;
      T m = row[0];
      for (int64_t j = 1; j < s; ++j) m = row[j] > m ? row[j] : m;
      T sum = 0;
      for (int64_t j = 0; j < s; ++j) sum += (row[j] = std::exp(row[j] - m));
      for (int64_t j = 0; j < s; ++j) row[j] /= sum;
    }
    for (int64_t i = 0; i < s; ++i) {  // out = p v
      for (int64_t e = 0; e < d; ++e) {
        T acc = 0;
        for (int64_t j = 0; j < s; ++j) acc += p[i * s + j] * vb[j * d + e];
        ob[i * d + e] = acc;
      }
    }
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& q = args->inputs[0];
  const hone_tensor& k = args->inputs[1];
  const hone_tensor& v = args->inputs[2];
  hone_tensor& out = args->outputs[0];
  const int64_t b = q.shape[0], s = q.shape[1], d = q.shape[2];
  if (q.dtype == HONE_F32)
    attention(static_cast<const float*>(q.data), static_cast<const float*>(k.data),
              static_cast<const float*>(v.data), static_cast<float*>(out.data), b, s, d);
  else if (q.dtype == HONE_F64)
    attention(static_cast<const double*>(q.data), static_cast<const double*>(k.data),
              static_cast<const double*>(v.data), static_cast<double*>(out.data), b, s, d);
  else
    return 1;
  return 0;
}
