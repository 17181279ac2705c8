// Declarations of tunables and the variants made from them (tune/tunables.h).
#include "tune/tunables.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(TunablesTest, DeclarationsCombinationsAndVariants) {
  std::string src =
      "// hone: tune BLOCK in {64, 128}\n"
      "  //hone: tune UNROLL in {1,2,4}\n"
      "#ifndef BLOCK\n#define BLOCK 32\n#endif\n"
      "#if !defined(UNROLL)\n#define UNROLL 1\n#endif\n";
  auto t = ParseTunables(src);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].name, "BLOCK");
  EXPECT_EQ((*t)[1].values, (std::vector<std::string>{"1", "2", "4"}));
  EXPECT_EQ((*t)[1].line, 2);
  auto combos = Combinations(*t);
  ASSERT_EQ(combos.size(), 6u);
  EXPECT_EQ(FormatAssignment(combos[0]), "BLOCK=64 UNROLL=1");
  EXPECT_EQ(FormatAssignment(combos[5]), "BLOCK=128 UNROLL=4");
  EXPECT_EQ(ApplyTunables("int x = BLOCK;\n", combos[1]),
            "#define BLOCK 64\n#define UNROLL 2\n#line 1\nint x = BLOCK;\n");
  EXPECT_TRUE(ParseTunables("int main() {}\n")->empty());
}

TEST(TunablesTest, BadDeclarationsNameTheirLine) {
  struct Case {
    std::string src, message;
  } cases[] = {
      {"\n// hone: tune BLOCK {64}\n", "line 2: expected"},
      {"// hone: tune B in {1}\n// hone: tune B in {2}\n", "line 2: tunable B is declared twice"},
      {"// hone: tune B in {1, x y}\n", "'x y' is not a number or a name"},
      {"// hone: tune B in {1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17}\n", "more than 16 values"},
      {"// hone: tune A in {1,2,3,4,5,6,7,8}\n// hone: tune B in {1,2,3,4,5,6,7,8,9}\n",
       "line 2: more than 64 variants"},
      {"// hone: tune B in {1, 2}\n#define B 3\n", "line 2: tunable B is #defined without"},
  };
  for (const auto& c : cases) {
    auto t = ParseTunables(c.src);
    ASSERT_FALSE(t.ok()) << c.src;
    EXPECT_NE(t.status().message().find(c.message), std::string::npos) << t.status().message();
  }
}

}  // namespace
}  // namespace hone
