#include "core/expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

namespace hone {

struct Expr::Node {
  enum Kind { kNumber, kSymbol, kUnaryMinus, kBinary, kCall } kind;
  double number = 0;
  std::string name;  // symbol or function name
  char op = 0;       // binary operator; '^' stands for **, 'f' for //
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Result<NodePtr> ParseAll() {
    auto e = ParseSum();
    if (!e.ok()) return e;
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected '" + std::string(1, s_[pos_]) + "'");
    return e;
  }

 private:
  Status Error(const std::string& what) const {
    return Status::Invalid("expression '" + std::string(s_) + "': " + what + " at column " +
                           std::to_string(pos_ + 1));
  }
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(std::string_view tok) {
    SkipSpace();
    if (s_.substr(pos_, tok.size()) == tok) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }
  static NodePtr Binary(char op, NodePtr a, NodePtr b) {
    auto n = std::make_shared<Expr::Node>();
    n->kind = Expr::Node::kBinary;
    n->op = op;
    n->args = {std::move(a), std::move(b)};
    return n;
  }

  Result<NodePtr> ParseSum() {
    auto lhs = ParseProduct();
    if (!lhs.ok()) return lhs;
    NodePtr acc = *lhs;
    while (true) {
      char op = Eat("+") ? '+' : Eat("-") ? '-' : 0;
      if (!op) return acc;
      auto rhs = ParseProduct();
      if (!rhs.ok()) return rhs;
      acc = Binary(op, acc, *rhs);
    }
  }
  Result<NodePtr> ParseProduct() {
    auto lhs = ParseUnary();
    if (!lhs.ok()) return lhs;
    NodePtr acc = *lhs;
    while (true) {
      SkipSpace();
      if (s_.substr(pos_, 2) == "**") return acc;  // handled in ParsePower
      char op = Eat("*") ? '*' : Eat("//") ? 'f' : Eat("/") ? '/' : Eat("%") ? '%' : 0;
      if (!op) return acc;
      auto rhs = ParseUnary();
      if (!rhs.ok()) return rhs;
      acc = Binary(op, acc, *rhs);
    }
  }
  Result<NodePtr> ParseUnary() {
    if (Eat("-")) {
      auto inner = ParseUnary();
      if (!inner.ok()) return inner;
      auto n = std::make_shared<Expr::Node>();
      n->kind = Expr::Node::kUnaryMinus;
      n->args = {*inner};
      return NodePtr(n);
    }
    if (Eat("+")) return ParseUnary();
    return ParsePower();
  }
  Result<NodePtr> ParsePower() {
    auto base = ParseAtom();
    if (!base.ok()) return base;
    if (Eat("**")) {
      auto exp = ParseUnary();  // right-associative
      if (!exp.ok()) return exp;
      return Binary('^', *base, *exp);
    }
    return base;
  }
  Result<NodePtr> ParseAtom() {
    SkipSpace();
    if (pos_ >= s_.size()) return Error("unexpected end");
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      auto e = ParseSum();
      if (!e.ok()) return e;
      if (!Eat(")")) return Error("missing ')'");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return ParseNumber();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return ParseName();
    return Error("unexpected '" + std::string(1, c) + "'");
  }
  Result<NodePtr> ParseNumber() {
    char* end = nullptr;
    std::string copy(s_.substr(pos_));
    double v = std::strtod(copy.c_str(), &end);
    size_t used = static_cast<size_t>(end - copy.c_str());
    if (used == 0) return Error("bad number");
    pos_ += used;
    auto n = std::make_shared<Expr::Node>();
    n->kind = Expr::Node::kNumber;
    n->number = v;
    return NodePtr(n);
  }
  Result<NodePtr> ParseName() {
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      ++pos_;
    auto n = std::make_shared<Expr::Node>();
    n->name = std::string(s_.substr(start, pos_ - start));
    if (!Eat("(")) {
      n->kind = Expr::Node::kSymbol;
      return NodePtr(n);
    }
    n->kind = Expr::Node::kCall;
    if (!Eat(")")) {
      do {
        auto arg = ParseSum();
        if (!arg.ok()) return arg;
        n->args.push_back(*arg);
      } while (Eat(","));
      if (!Eat(")")) return Error("missing ')' after arguments of " + n->name);
    }
    static const std::map<std::string, size_t> kArity = {
        {"ceil", 1}, {"floor", 1}, {"sqrt", 1}, {"ceildiv", 2}};
    if (n->name == "min" || n->name == "max") {
      if (n->args.size() < 2) return Error(n->name + " takes two or more arguments");
      return NodePtr(n);
    }
    auto it = kArity.find(n->name);
    if (it == kArity.end()) return Error("unknown function '" + n->name + "'");
    if (it->second != n->args.size())
      return Error(n->name + " takes " + std::to_string(it->second) + " arguments");
    return NodePtr(n);
  }

  std::string_view s_;
  size_t pos_ = 0;
};

Result<double> EvalNode(const Expr::Node& n, const Symbols& syms) {
  switch (n.kind) {
    case Expr::Node::kNumber:
      return n.number;
    case Expr::Node::kSymbol: {
      auto it = syms.find(n.name);
      if (it == syms.end()) return Status::Invalid("unknown symbol '" + n.name + "'");
      return it->second;
    }
    case Expr::Node::kUnaryMinus: {
      auto v = EvalNode(*n.args[0], syms);
      if (!v.ok()) return v;
      return -*v;
    }
    default:
      break;
  }
  std::vector<double> a;
  for (const auto& arg : n.args) {
    auto v = EvalNode(*arg, syms);
    if (!v.ok()) return v;
    a.push_back(*v);
  }
  if (n.kind == Expr::Node::kCall) {
    if (n.name == "min") return *std::min_element(a.begin(), a.end());
    if (n.name == "max") return *std::max_element(a.begin(), a.end());
    if (n.name == "ceil") return std::ceil(a[0]);
    if (n.name == "floor") return std::floor(a[0]);
    if (n.name == "sqrt") return std::sqrt(a[0]);
    if (n.name == "ceildiv") {
      if (a[1] == 0) return Status::Invalid("ceildiv by zero");
      return std::ceil(a[0] / a[1]);
    }
  }
  switch (n.op) {
    case '+':
      return a[0] + a[1];
    case '-':
      return a[0] - a[1];
    case '*':
      return a[0] * a[1];
    case '/':
      if (a[1] == 0) return Status::Invalid("division by zero");
      return a[0] / a[1];
    case 'f':
      if (a[1] == 0) return Status::Invalid("division by zero");
      return std::floor(a[0] / a[1]);
    case '%': {
      // Python's: the result has the divisor's sign (-7 % 3 == 2).
      if (a[1] == 0) return Status::Invalid("modulo by zero");
      double r = std::fmod(a[0], a[1]);
      return r != 0 && ((r < 0) != (a[1] < 0)) ? r + a[1] : r;
    }
    case '^':
      return std::pow(a[0], a[1]);
  }
  return Status::Internal("bad expression node");
}

void CollectSymbols(const Expr::Node& n, std::set<std::string>& out) {
  if (n.kind == Expr::Node::kSymbol) out.insert(n.name);
  for (const auto& a : n.args) CollectSymbols(*a, out);
}

}  // namespace

Result<Expr> Expr::Parse(std::string_view text) {
  auto root = Parser(text).ParseAll();
  if (!root.ok()) return root.status();
  Expr e;
  e.text_ = std::string(text);
  e.root_ = *root;
  return e;
}

Result<double> Expr::Eval(const Symbols& symbols) const {
  auto v = EvalNode(*root_, symbols);
  if (!v.ok()) return v.status().With("expression '" + text_ + "': ");
  return v;
}

Result<int64_t> Expr::EvalInt(const Symbols& symbols) const {
  auto v = Eval(symbols);
  if (!v.ok()) return v.status();
  double r = std::nearbyint(*v);
  if (std::fabs(*v - r) > 1e-9 || !std::isfinite(*v))
    return Status::Invalid("expression '" + text_ + "' is not a whole number (" +
                           std::to_string(*v) + ")");
  return static_cast<int64_t>(r);
}

std::set<std::string> Expr::SymbolsUsed() const {
  std::set<std::string> out;
  CollectSymbols(*root_, out);
  return out;
}

}  // namespace hone
