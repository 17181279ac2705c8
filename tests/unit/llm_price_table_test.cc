#include <gtest/gtest.h>

#include "core/fs.h"
#include "llm/provider.h"

namespace hone {
namespace {

ModelSpec Spec(const std::string& text) { return *ParseModelSpec(text, "http://localhost:1/v1"); }

class PriceTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = MakeTempDir(std::filesystem::temp_directory_path(), "hone-prices");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_ = *dir;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path Write(const std::string& text) {
    auto path = dir_ / "prices.toml";
    EXPECT_TRUE(WriteFileAtomic(path, text).ok());
    return path;
  }

  std::string LoadError(const std::string& text) {
    auto t = PriceTable::Load(Write(text));
    EXPECT_FALSE(t.ok());
    if (t.ok()) return "";
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(t.status().message().find("prices.toml"), std::string::npos) << t.status().message();
    return t.status().message();
  }

  std::filesystem::path dir_;
};

TEST_F(PriceTableTest, DefaultsPriceWellKnownModels) {
  PriceTable t = PriceTable::Defaults();
  EXPECT_DOUBLE_EQ(t.Cost(Spec("openai:gpt-4.1"), 1'000'000, 1'000'000), 10.0);
  EXPECT_DOUBLE_EQ(t.Cost(Spec("anthropic:claude-sonnet-4-5"), 1'000'000, 0), 3.0);
  EXPECT_DOUBLE_EQ(t.Cost(Spec("deepseek:deepseek-chat"), 0, 1'000'000), 1.1);
  EXPECT_EQ(t.Cost(Spec("vllm:Qwen/Qwen3-32B"), 1000, 1000), 0);
  EXPECT_FALSE(t.Has(Spec("vllm:Qwen/Qwen3-32B")));
}

TEST_F(PriceTableTest, ProviderQualifiedNameWinsOverBareName) {
  PriceTable t;
  t.Set("gpt-4.1", 1, 1);
  t.Set("openai:gpt-4.1", 2, 2);
  EXPECT_DOUBLE_EQ(t.Cost(Spec("openai:gpt-4.1"), 1'000'000, 0), 2);
  EXPECT_DOUBLE_EQ(t.Cost(Spec("openrouter:gpt-4.1"), 1'000'000, 0), 1);  // bare name
}

TEST_F(PriceTableTest, LoadsAFileAndMergesOverDefaults) {
  auto t = PriceTable::Load(Write(R"(
[prices."openai:gpt-4.1"]
input = 1
output = 2.5

[prices."Qwen/Qwen3-32B"]
input = 0.1
output = 0.3
)"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_DOUBLE_EQ(t->Cost(Spec("vllm:Qwen/Qwen3-32B"), 1'000'000, 1'000'000), 0.4);
  EXPECT_FALSE(t->Has(Spec("anthropic:claude-sonnet-4-5")));
  PriceTable merged = PriceTable::Defaults();
  merged.Merge(*t);
  EXPECT_DOUBLE_EQ(merged.Cost(Spec("openai:gpt-4.1"), 1'000'000, 1'000'000), 3.5);
  EXPECT_TRUE(merged.Has(Spec("anthropic:claude-sonnet-4-5")));
}

TEST_F(PriceTableTest, SyntaxErrorsNameFileAndLine) {
  std::string msg = LoadError("[prices.\"m\"]\ninput = 1\noutput = = 2\n");
  EXPECT_NE(msg.find(":3:"), std::string::npos) << msg;
}

TEST_F(PriceTableTest, UnknownFieldNamesTheEntry) {
  std::string msg = LoadError("[prices.\"my-model\"]\ninput = 1\noutput = 2\ncached = 0.5\n");
  EXPECT_NE(msg.find("my-model"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cached"), std::string::npos) << msg;
}

TEST_F(PriceTableTest, IllTypedAndMissingFieldsNameTheEntry) {
  std::string typed = LoadError("[prices.\"my-model\"]\ninput = \"cheap\"\noutput = 2\n");
  EXPECT_NE(typed.find("my-model"), std::string::npos) << typed;
  EXPECT_NE(typed.find("input"), std::string::npos) << typed;
  std::string missing = LoadError("[prices.\"my-model\"]\ninput = 1\n");
  EXPECT_NE(missing.find("my-model"), std::string::npos) << missing;
  EXPECT_NE(missing.find("output"), std::string::npos) << missing;
  std::string negative = LoadError("[prices.\"m\"]\ninput = -1\noutput = 1\n");
  EXPECT_NE(negative.find("negative"), std::string::npos) << negative;
  std::string not_table = LoadError("[prices]\nm = 3\n");
  EXPECT_NE(not_table.find("\"m\""), std::string::npos) << not_table;
  std::string top = LoadError("[price.\"m\"]\ninput = 1\noutput = 1\n");
  EXPECT_NE(top.find("price"), std::string::npos) << top;
}

TEST_F(PriceTableTest, MissingFileIsAnError) {
  auto t = PriceTable::Load(dir_ / "nope.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("nope.toml"), std::string::npos);
}

}  // namespace
}  // namespace hone
