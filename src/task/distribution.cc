#include "task/distribution.h"

#include <cmath>
#include <map>

namespace hone {
namespace {

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

// Splits "a, f(b, c), d" at top-level commas.
std::vector<std::string> SplitArgs(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (s[i] == ',' && depth == 0) {
      out.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(Trim(s.substr(start)));
  return out;
}

}  // namespace

Result<Distribution> Distribution::Parse(std::string_view text_in) {
  std::string text = Trim(text_in);
  auto fail = [&](const std::string& why) {
    return Status::Invalid("distribution '" + text + "': " + why);
  };
  size_t open = text.find('(');
  if (open == std::string::npos || text.back() != ')')
    return fail("expected name(arguments), e.g. uniform(-1, 1)");
  std::string name = Trim(std::string_view(text).substr(0, open));
  std::string inside = text.substr(open + 1, text.size() - open - 2);

  struct Spec {
    SampleKind kind;
    size_t arity;
    bool wraps;
  };
  static const std::map<std::string, Spec> kSpecs = {
      {"uniform", {SampleKind::kUniform, 2, false}},
      {"normal", {SampleKind::kNormal, 2, false}},
      {"randint", {SampleKind::kRandint, 2, false}},
      {"bernoulli", {SampleKind::kBernoulli, 1, false}},
      {"constant", {SampleKind::kConstant, 1, false}},
      {"tril", {SampleKind::kTril, 1, true}},
      {"triu", {SampleKind::kTriu, 1, true}},
      {"abs", {SampleKind::kAbs, 1, true}},
  };
  auto it = kSpecs.find(name);
  if (it == kSpecs.end())
    return fail("unknown distribution '" + name +
                "' (uniform, normal, randint, bernoulli, constant, tril, triu, abs)");
  Distribution d;
  d.text_ = text;
  d.kind_ = it->second.kind;
  if (it->second.wraps) {
    auto inner = Parse(inside);
    if (!inner.ok()) return inner.status();
    d.inner_ = std::make_shared<Distribution>(std::move(inner).value());
    return d;
  }
  auto parts = SplitArgs(inside);
  if (parts.size() != it->second.arity || (parts.size() == 1 && parts[0].empty()))
    return fail(name + " takes " + std::to_string(it->second.arity) + " argument(s)");
  for (const auto& p : parts) {
    auto e = Expr::Parse(p);
    if (!e.ok()) return e.status().With("distribution '" + text + "': ");
    d.args_.push_back(std::move(e).value());
  }
  return d;
}

std::set<std::string> Distribution::SymbolsUsed() const {
  if (inner_) return inner_->SymbolsUsed();
  std::set<std::string> out;
  for (const auto& a : args_)
    for (const auto& s : a.SymbolsUsed()) out.insert(s);
  return out;
}

Result<SamplerSpec> Distribution::Compile(const std::vector<int64_t>& shape,
                                          const Symbols& symbols) const {
  SamplerSpec spec;
  for (const Distribution* d = this; d; d = d->inner_.get()) {
    if (spec.depth == SamplerSpec::kMaxDepth)
      return Status::Invalid(text_ + ": nested more than " +
                             std::to_string(SamplerSpec::kMaxDepth) + " deep");
    if ((d->kind_ == SampleKind::kTril || d->kind_ == SampleKind::kTriu) && shape.size() < 2)
      return Status::Invalid(text_ + ": needs a tensor of at least 2 axes");
    double args[2] = {0, 0};
    for (size_t i = 0; i < d->args_.size(); ++i) {
      auto x = d->args_[i].Eval(symbols);
      if (!x.ok()) return x.status().With(text_ + ": ");
      args[i] = *x;
    }
    if (d->kind_ == SampleKind::kRandint && args[1] <= args[0])
      return Status::Invalid(d->text_ + ": empty range");
    spec.kinds[spec.depth] = d->kind_;
    spec.a[spec.depth] = args[0];
    spec.b[spec.depth] = args[1];
    ++spec.depth;
  }
  if (shape.size() >= 2) {
    spec.rows = std::max<int64_t>(shape[shape.size() - 2], 1);
    spec.cols = std::max<int64_t>(shape.back(), 1);
  }
  return spec;
}

Status Distribution::Fill(void* data, Dtype t, const std::vector<int64_t>& shape,
                          const Symbols& symbols, uint64_t seed, uint64_t stream) const {
  HONE_ASSIGN_OR_RETURN(SamplerSpec spec, Compile(shape, symbols));
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  FillFromSampler(data, t, n, spec, seed, stream);
  return Status::Ok();
}

}  // namespace hone
