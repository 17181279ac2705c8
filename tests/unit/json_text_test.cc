// Text that is not UTF-8 never ends hone (src/core/json_text.h): Latin-1 in
// a line gcc quotes, random bytes offered as a candidate, a reason cut in
// the middle of a character.
#include "core/json_text.h"

#include <gtest/gtest.h>

#include "report/run_summary_text.h"

namespace hone {
namespace {

TEST(JsonTextTest, InvalidBytesBecomeReplacementCharacters) {
  // "caf\xe9" is Latin-1; nlohmann's dump() threw type_error 316 on it.
  nlohmann::json j = {{"log", "x.cpp:8:3: error: 'caf\xe9' was not declared"}};
  std::string text;
  ASSERT_NO_THROW(text = JsonText(j));
  EXPECT_NE(text.find("caf\xef\xbf\xbd'"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text)["log"].get<std::string>().find('\xe9'), std::string::npos);
  EXPECT_EQ(JsonText({{"a", 1}}, 2), "{\n  \"a\": 1\n}");
}

TEST(JsonTextTest, RandomBytesSurvive) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>((i * 37 + 11) & 0xFF);
  std::string valid;
  ASSERT_NO_THROW(valid = ValidUtf8(bytes));
  ASSERT_NO_THROW((void)JsonText(nlohmann::json(valid)));
  EXPECT_EQ(ValidUtf8("plain \xc3\xa9t\xc3\xa9"), "plain \xc3\xa9t\xc3\xa9");
}

TEST(JsonTextTest, AReasonIsNeverCutInsideACharacter) {
  // 99 ASCII bytes, then a two-byte character across the 100-byte cut.
  std::string reason = std::string(99, 'a') + "\xc3\xa9" + "tail";
  std::string cut = FirstLine(reason, 100);
  EXPECT_EQ(cut, std::string(99, 'a') + "...");
  ASSERT_NO_THROW((void)nlohmann::json::parse(JsonText(nlohmann::json(cut))));
}

// The cut FirstLine, compat's caps and bench's progress line share: never
// inside a character, whatever its length in bytes.
TEST(JsonTextTest, Utf8PrefixBacksUpToTheStartOfACharacter) {
  const std::string text =
      "ab\xc3\xa9"
      "c\xe2\x82\xac"
      "d\xf0\x9f\x98\x80";  // ab e' c EUR d smile
  EXPECT_EQ(Utf8Prefix(text, 100), text);
  EXPECT_EQ(Utf8Prefix(text, 2), "ab");
  EXPECT_EQ(Utf8Prefix(text, 3), "ab");  // inside the two-byte e'
  EXPECT_EQ(Utf8Prefix(text, 4), "ab\xc3\xa9");
  EXPECT_EQ(Utf8Prefix(text, 6),
            "ab\xc3\xa9"
            "c");  // inside the euro sign
  EXPECT_EQ(Utf8Prefix(text, 7),
            "ab\xc3\xa9"
            "c");
  EXPECT_EQ(Utf8Prefix(text, 8),
            "ab\xc3\xa9"
            "c\xe2\x82\xac");
  EXPECT_EQ(Utf8Prefix(text, 11),
            "ab\xc3\xa9"
            "c\xe2\x82\xac"
            "d");  // inside the emoji
  EXPECT_EQ(Utf8Prefix(text, 0), "");
  for (size_t max = 0; max <= text.size(); ++max) {
    const std::string cut(Utf8Prefix(text, max));
    EXPECT_EQ(ValidUtf8(cut), cut) << max;
    EXPECT_LE(cut.size(), max);
  }
}

TEST(JsonTextTest, ValidUtf8ReplacesOnlyWhatIsNotUtf8) {
  EXPECT_EQ(ValidUtf8("plain ascii"), "plain ascii");
  EXPECT_EQ(ValidUtf8("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(ValidUtf8("caf\xe9"), "caf\xef\xbf\xbd");  // Latin-1
}

}  // namespace
}  // namespace hone
