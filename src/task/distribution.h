// Value distributions for generated inputs: "uniform(-1, 1)", "randint(0, V)",
// "tril(normal(0, 1))". Arguments are expressions over the case's symbols so
// index ranges follow the shape. Filling is deterministic in the Rng.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/expr.h"
#include "core/rng.h"
#include "core/status.h"
#include "task/sampler.h"

namespace hone {

class Distribution {
 public:
  static Result<Distribution> Parse(std::string_view text);

  // Fills numel elements of `data` (dtype t, row-major `shape`) on all
  // cores, chunked as task/sampler.h describes.
  Status Fill(void* data, Dtype t, const std::vector<int64_t>& shape, const Symbols& symbols,
              uint64_t seed, uint64_t stream) const;
  // The flattened form with its arguments evaluated for `symbols`, for a
  // tensor of `shape`; the GPU generates from it (cuda/device_fill.h).
  Result<SamplerSpec> Compile(const std::vector<int64_t>& shape, const Symbols& symbols) const;
  std::set<std::string> SymbolsUsed() const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  SampleKind kind_ = SampleKind::kUniform;
  std::vector<Expr> args_;
  std::shared_ptr<const Distribution> inner_;  // for tril, triu, abs
};

}  // namespace hone
