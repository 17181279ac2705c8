#include "core/expr.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

double Eval(const char* text, const Symbols& s = {}) {
  auto e = Expr::Parse(text);
  EXPECT_TRUE(e.ok()) << e.status().message();
  auto v = e->Eval(s);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return *v;
}

TEST(ExprTest, ArithmeticAndPrecedence) {
  EXPECT_EQ(Eval("1 + 2 * 3"), 7);
  EXPECT_EQ(Eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(Eval("-2 ** 2"), -4);
  EXPECT_EQ(Eval("2 ** 3 ** 2"), 512);
  EXPECT_EQ(Eval("7 % 4"), 3);
  EXPECT_EQ(Eval("10 / 4"), 2.5);
  EXPECT_EQ(Eval("1e3"), 1000);
}

TEST(ExprTest, SymbolsAndFunctions) {
  Symbols s{{"H", 32}, {"KH", 3}};
  EXPECT_EQ(Eval("H - KH + 1", s), 30);
  EXPECT_EQ(Eval("max(H, KH) + min(H, KH)", s), 35);
  EXPECT_EQ(Eval("ceildiv(H, 5)", s), 7);
  EXPECT_EQ(Eval("sqrt(16) + floor(2.7) + ceil(2.1)", s), 9);
  auto e = Expr::Parse("2 * M * N + K");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->SymbolsUsed(), (std::set<std::string>{"K", "M", "N"}));
}

TEST(ExprTest, ErrorsNameTheProblem) {
  auto bad = Expr::Parse("2 * (N + 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("missing ')'"), std::string::npos);
  EXPECT_FALSE(Expr::Parse("foo(1)").ok());
  EXPECT_FALSE(Expr::Parse("max(1)").ok());
  EXPECT_FALSE(Expr::Parse("1 +").ok());
  auto e = Expr::Parse("N / 0");
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->Eval({{"N", 1}}).ok());
  auto unknown = Expr::Parse("M")->Eval({});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown symbol 'M'"), std::string::npos);
}

// SOL-ExecBench writes its expression axes in Python; they mean what
// Python says they mean.
TEST(ExprTest, PythonOperatorsMeanWhatPythonSays) {
  Symbols s{{"attention_head_dim", 128}, {"n", 7}};
  EXPECT_EQ(Eval("attention_head_dim // 2", s), 64);
  EXPECT_EQ(Eval("n // 2", s), 3);
  EXPECT_EQ(Eval("-n // 2", s), -4) << "floors, as Python's //";
  EXPECT_EQ(Eval("-7 % 3"), 2) << "the divisor's sign, as Python's %";
  EXPECT_EQ(Eval("7 % -3"), -2);
  EXPECT_EQ(Eval("2 ** 10 // 3 % 5"), 1) << "1024 // 3 = 341, 341 % 5 = 1";
  EXPECT_EQ(Eval("max(1, n, 3) + min(n, 9, 2, 4)", s), 9);
  EXPECT_EQ(Eval("(n + 1) // (2 ** 2)", s), 2);
  auto e = Expr::Parse("n // 0");
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->Eval(s).ok());
  EXPECT_EQ(*Expr::Parse("attention_head_dim // 2")->EvalInt(s), 64);
}

TEST(ExprTest, EvalIntRequiresWholeNumbers) {
  auto e = Expr::Parse("N / 2");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e->EvalInt({{"N", 8}}), 4);
  EXPECT_FALSE(e->EvalInt({{"N", 7}}).ok());
}

}  // namespace
}  // namespace hone
