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

}  // namespace
}  // namespace hone
