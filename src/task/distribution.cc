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
    Kind kind;
    size_t arity;
    bool wraps;
  };
  static const std::map<std::string, Spec> kSpecs = {
      {"uniform", {Kind::kUniform, 2, false}},   {"normal", {Kind::kNormal, 2, false}},
      {"randint", {Kind::kRandint, 2, false}},   {"bernoulli", {Kind::kBernoulli, 1, false}},
      {"constant", {Kind::kConstant, 1, false}}, {"tril", {Kind::kTril, 1, true}},
      {"triu", {Kind::kTriu, 1, true}},          {"abs", {Kind::kAbs, 1, true}},
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

Status Distribution::Evaluate(const Symbols& symbols,
                              std::vector<std::vector<double>>& args) const {
  std::vector<double> mine;
  for (const auto& e : args_) {
    auto x = e.Eval(symbols);
    if (!x.ok()) return x.status().With(text_ + ": ");
    mine.push_back(*x);
  }
  if (kind_ == Kind::kRandint && mine[1] <= mine[0])
    return Status::Invalid(text_ + ": empty range");
  args.push_back(std::move(mine));
  return inner_ ? inner_->Evaluate(symbols, args) : Status::Ok();
}

void Distribution::Generate(double* v, int64_t begin, int64_t count,
                            const std::vector<int64_t>& shape,
                            const std::vector<std::vector<double>>& args, size_t depth,
                            Rng& rng) const {
  const std::vector<double>& a = args[depth];
  if (inner_) {
    inner_->Generate(v, begin, count, shape, args, depth + 1, rng);
    if (kind_ == Kind::kAbs) {
      for (int64_t i = 0; i < count; ++i) v[i] = std::fabs(v[i]);
      return;
    }
    int64_t rows = shape[shape.size() - 2], cols = shape.back();
    for (int64_t i = 0; i < count; ++i) {
      int64_t flat = begin + i;
      int64_t c = flat % cols;
      int64_t r = (flat / cols) % rows;
      bool keep = kind_ == Kind::kTril ? c <= r : c >= r;
      if (!keep) v[i] = 0;
    }
    return;
  }
  switch (kind_) {
    case Kind::kUniform:
      for (int64_t i = 0; i < count; ++i) v[i] = a[0] + (a[1] - a[0]) * rng.Uniform();
      break;
    case Kind::kNormal:
      for (int64_t i = 0; i < count; ++i) v[i] = a[0] + a[1] * rng.Normal();
      break;
    case Kind::kRandint: {
      double lo = std::ceil(a[0]), span = std::floor(a[1]) - lo;
      for (int64_t i = 0; i < count; ++i) v[i] = lo + std::floor(rng.Uniform() * span);
      break;
    }
    case Kind::kBernoulli:
      for (int64_t i = 0; i < count; ++i) v[i] = rng.Uniform() < a[0] ? 1.0 : 0.0;
      break;
    case Kind::kConstant:
      for (int64_t i = 0; i < count; ++i) v[i] = a[0];
      break;
    default:
      break;
  }
}

Status Distribution::Fill(void* data, Dtype t, const std::vector<int64_t>& shape,
                          const Symbols& symbols, uint64_t seed, uint64_t stream) const {
  if ((kind_ == Kind::kTril || kind_ == Kind::kTriu) && shape.size() < 2)
    return Status::Invalid(text_ + ": needs a tensor of at least 2 axes");
  std::vector<std::vector<double>> args;
  HONE_RETURN_IF_ERROR(Evaluate(symbols, args));
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  constexpr int64_t kChunk = 1 << 16;
  int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(dynamic, 4) if (chunks > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = c * kChunk, count = std::min(kChunk, n - begin);
    std::vector<double> v(static_cast<size_t>(count));
    Rng rng(seed, (stream << 32) ^ static_cast<uint64_t>(c));
    Generate(v.data(), begin, count, shape, args, 0, rng);
    if (t == HONE_F32) {
      float* out = static_cast<float*>(data) + begin;
      for (int64_t i = 0; i < count; ++i) out[i] = static_cast<float>(v[i]);
    } else {
      for (int64_t i = 0; i < count; ++i)
        StoreFromDouble(data, t, static_cast<size_t>(begin + i), v[i]);
    }
  }
  return Status::Ok();
}

}  // namespace hone
