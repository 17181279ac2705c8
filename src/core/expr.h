// Arithmetic expressions over named symbols, for shapes ("H - KH + 1"),
// cost formulas ("2 * M * N * K") and distribution arguments ("randint(0, V)").
//
// Grammar: numbers, identifiers, + - * / // % **, unary minus, parentheses,
// and the functions min and max (two or more arguments), ceil, floor, sqrt,
// ceildiv. The operators mean what Python's do, so that definitions written
// in Python (SOL-ExecBench's "attention_head_dim // 2") read unchanged: `/`
// is true division, `//` floors, `%` takes the divisor's sign, `**` is
// right-associative and binds tighter than unary minus. Parsing is separate
// from evaluation so a task can be validated once against its symbols.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "core/status.h"

namespace hone {

using Symbols = std::map<std::string, double, std::less<>>;

class Expr {
 public:
  struct Node;
  static Result<Expr> Parse(std::string_view text);

  Result<double> Eval(const Symbols& symbols) const;
  // Evaluates and requires a whole number (shapes, sizes).
  Result<int64_t> EvalInt(const Symbols& symbols) const;
  // Every identifier the expression mentions.
  std::set<std::string> SymbolsUsed() const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace hone
