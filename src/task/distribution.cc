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
      {"uniform", {Kind::kUniform, 2, false}},  {"normal", {Kind::kNormal, 2, false}},
      {"randint", {Kind::kRandint, 2, false}},  {"bernoulli", {Kind::kBernoulli, 1, false}},
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

Status Distribution::FillDoubles(std::vector<double>& v, const std::vector<int64_t>& shape,
                                 const Symbols& symbols, Rng& rng) const {
  if (inner_) {
    HONE_RETURN_IF_ERROR(inner_->FillDoubles(v, shape, symbols, rng));
    if (kind_ == Kind::kAbs) {
      for (double& x : v) x = std::fabs(x);
      return Status::Ok();
    }
    if (shape.size() < 2) return Status::Invalid(text_ + ": needs a tensor of at least 2 axes");
    int64_t rows = shape[shape.size() - 2], cols = shape.back();
    for (size_t i = 0; i < v.size(); ++i) {
      int64_t c = static_cast<int64_t>(i) % cols;
      int64_t r = (static_cast<int64_t>(i) / cols) % rows;
      bool keep = kind_ == Kind::kTril ? c <= r : c >= r;
      if (!keep) v[i] = 0;
    }
    return Status::Ok();
  }
  std::vector<double> a;
  for (const auto& e : args_) {
    auto x = e.Eval(symbols);
    if (!x.ok()) return x.status().With(text_ + ": ");
    a.push_back(*x);
  }
  switch (kind_) {
    case Kind::kUniform:
      for (double& x : v) x = a[0] + (a[1] - a[0]) * rng.Uniform();
      break;
    case Kind::kNormal:
      for (double& x : v) x = a[0] + a[1] * rng.Normal();
      break;
    case Kind::kRandint: {
      if (a[1] <= a[0]) return Status::Invalid(text_ + ": empty range");
      double span = std::floor(a[1]) - std::ceil(a[0]);
      for (double& x : v) x = std::ceil(a[0]) + std::floor(rng.Uniform() * span);
      break;
    }
    case Kind::kBernoulli:
      for (double& x : v) x = rng.Uniform() < a[0] ? 1.0 : 0.0;
      break;
    case Kind::kConstant:
      for (double& x : v) x = a[0];
      break;
    default:
      return Status::Internal("bad distribution kind");
  }
  return Status::Ok();
}

Status Distribution::Fill(void* data, Dtype t, const std::vector<int64_t>& shape,
                          const Symbols& symbols, Rng& rng) const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  HONE_RETURN_IF_ERROR(FillDoubles(v, shape, symbols, rng));
  for (size_t i = 0; i < v.size(); ++i) StoreFromDouble(data, t, i, v[i]);
  return Status::Ok();
}

}  // namespace hone
