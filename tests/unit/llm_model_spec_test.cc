#include <gtest/gtest.h>

#include <cstdlib>

#include "llm/provider.h"

namespace hone {
namespace {

class ModelSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("OPENAI_BASE_URL");
    unsetenv("ANTHROPIC_BASE_URL");
  }
};

TEST_F(ModelSpecTest, OpenAiDefaults) {
  auto m = ParseModelSpec("openai:gpt-4.1");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->provider, "openai");
  EXPECT_EQ(m->model, "gpt-4.1");
  EXPECT_EQ(m->api, "openai");
  EXPECT_EQ(m->base_url, "https://api.openai.com/v1");
  EXPECT_EQ(m->api_key_env, "OPENAI_API_KEY");
  EXPECT_TRUE(m->api_key_required);
  EXPECT_EQ(m->text(), "openai:gpt-4.1");
}

TEST_F(ModelSpecTest, AnthropicSpeaksMessages) {
  auto m = ParseModelSpec("anthropic:claude-sonnet-4-5");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->api, "anthropic");
  EXPECT_EQ(m->base_url, "https://api.anthropic.com/v1");
  EXPECT_EQ(m->api_key_env, "ANTHROPIC_API_KEY");
}

TEST_F(ModelSpecTest, HostedOpenAiCompatibleProviders) {
  struct Case {
    const char* spec;
    const char* base;
    const char* env;
  };
  for (const Case& c :
       {Case{"openrouter:x/y", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"},
        Case{"deepseek:deepseek-chat", "https://api.deepseek.com", "DEEPSEEK_API_KEY"},
        Case{"together:meta-llama/Llama-3.3-70B-Instruct-Turbo", "https://api.together.xyz/v1",
             "TOGETHER_API_KEY"}}) {
    auto m = ParseModelSpec(c.spec);
    ASSERT_TRUE(m.ok()) << c.spec;
    EXPECT_EQ(m->api, "openai") << c.spec;
    EXPECT_EQ(m->base_url, c.base) << c.spec;
    EXPECT_EQ(m->api_key_env, c.env) << c.spec;
    EXPECT_TRUE(m->api_key_required) << c.spec;
  }
}

TEST_F(ModelSpecTest, SelfHostedServersNeedNoKey) {
  auto vllm = ParseModelSpec("vllm:Qwen/Qwen3-32B");
  ASSERT_TRUE(vllm.ok());
  EXPECT_EQ(vllm->model, "Qwen/Qwen3-32B");
  EXPECT_EQ(vllm->base_url, "http://localhost:8000/v1");
  EXPECT_EQ(vllm->api_key_env, "VLLM_API_KEY");
  EXPECT_FALSE(vllm->api_key_required);
  EXPECT_EQ(ParseModelSpec("sglang:m")->base_url, "http://localhost:30000/v1");
  EXPECT_EQ(ParseModelSpec("llamacpp:m")->base_url, "http://localhost:8080/v1");
  auto ollama = ParseModelSpec("ollama:llama3.1:8b");
  ASSERT_TRUE(ollama.ok());
  EXPECT_EQ(ollama->model, "llama3.1:8b");  // split at the first ':'
  EXPECT_EQ(ollama->base_url, "http://localhost:11434/v1");
  EXPECT_FALSE(ollama->api_key_required);
}

TEST_F(ModelSpecTest, BaseUrlOverrideWinsAndLosesTrailingSlash) {
  setenv("OPENAI_BASE_URL", "http://from-env:1/v1", 1);
  auto m = ParseModelSpec("openai:gpt-4.1", "http://gpu-box:8000/v1/");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->base_url, "http://gpu-box:8000/v1");
}

TEST_F(ModelSpecTest, BaseUrlEnvironmentVariables) {
  setenv("OPENAI_BASE_URL", "http://proxy:9000/v1/", 1);
  EXPECT_EQ(ParseModelSpec("openai:gpt-4.1")->base_url, "http://proxy:9000/v1");
  EXPECT_EQ(ParseModelSpec("vllm:m")->base_url, "http://localhost:8000/v1");  // not for others
  setenv("ANTHROPIC_BASE_URL", "https://gateway.example.com", 1);
  EXPECT_EQ(ParseModelSpec("anthropic:c")->base_url, "https://gateway.example.com/v1");
  setenv("ANTHROPIC_BASE_URL", "https://gateway.example.com/v1/", 1);
  EXPECT_EQ(ParseModelSpec("anthropic:c")->base_url, "https://gateway.example.com/v1");
}

TEST_F(ModelSpecTest, OpenAiCompatibleNeedsABaseUrl) {
  auto bad = ParseModelSpec("openai-compatible:my-model");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("base URL"), std::string::npos);
  auto good = ParseModelSpec("openai-compatible:my-model", "http://10.0.0.5:8000/v1");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good->api, "openai");
  EXPECT_EQ(good->api_key_env, "HONE_LLM_API_KEY") << "an OpenAI key must not go to another server";
  EXPECT_FALSE(good->api_key_required);
}

TEST_F(ModelSpecTest, ErrorsNameTheTextAndTheKnownProviders) {
  auto unknown = ParseModelSpec("gemini:gemini-2.5-pro");
  ASSERT_FALSE(unknown.ok());
  const std::string& msg = unknown.status().message();
  EXPECT_NE(msg.find("'gemini'"), std::string::npos) << msg;
  for (const char* p : {"openai", "anthropic", "vllm", "ollama", "openai-compatible"}) {
    EXPECT_NE(msg.find(p), std::string::npos) << p;
  }
  auto no_provider = ParseModelSpec("gpt-4.1");
  ASSERT_FALSE(no_provider.ok());
  EXPECT_NE(no_provider.status().message().find("'gpt-4.1'"), std::string::npos);
  EXPECT_NE(no_provider.status().message().find("PROVIDER:MODEL"), std::string::npos);
  EXPECT_FALSE(ParseModelSpec("openai:").ok());
  EXPECT_FALSE(ParseModelSpec("").ok());
  EXPECT_FALSE(ParseModelSpec("vllm:m", "localhost:8000").ok());  // no scheme
}

}  // namespace
}  // namespace hone
