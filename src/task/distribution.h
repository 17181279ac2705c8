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

namespace hone {

class Distribution {
 public:
  static Result<Distribution> Parse(std::string_view text);

  // Fills numel elements of `data` (dtype t, row-major `shape`). Runs on all
  // cores; every 64 Ki-element chunk draws from its own stream derived from
  // (seed, stream, chunk), so the values never depend on the thread count.
  Status Fill(void* data, Dtype t, const std::vector<int64_t>& shape, const Symbols& symbols,
              uint64_t seed, uint64_t stream) const;
  std::set<std::string> SymbolsUsed() const;
  const std::string& text() const { return text_; }

 private:
  enum class Kind { kUniform, kNormal, kRandint, kBernoulli, kConstant, kTril, kTriu, kAbs };
  // The arguments of this node and of the nodes it wraps, evaluated.
  Status Evaluate(const Symbols& symbols, std::vector<std::vector<double>>& args) const;
  // Values of elements [begin, begin + count) into out.
  void Generate(double* out, int64_t begin, int64_t count, const std::vector<int64_t>& shape,
                const std::vector<std::vector<double>>& args, size_t depth, Rng& rng) const;

  std::string text_;
  Kind kind_ = Kind::kUniform;
  std::vector<Expr> args_;
  std::shared_ptr<const Distribution> inner_;  // for tril, triu, abs
};

}  // namespace hone
