#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "llm/provider.h"
#include "support/fake_llm_server.h"

namespace hone {
namespace {

constexpr char kOpenAiKey[] = "sk-test-secret-openai";
constexpr char kAnthropicKey[] = "sk-ant-test-secret";

RetryPolicy FastPolicy() {
  RetryPolicy p;
  p.max_attempts = 4;
  p.base_delay_seconds = 1;
  p.max_delay_seconds = 60;
  p.jitter = 0;
  p.timeout_seconds = 10;
  return p;
}

ChatRequest SimpleRequest() {
  ChatRequest r;
  r.system = "You write fast kernels.";
  r.messages = {{"user", "Write a kernel."}};
  r.temperature = 0.5;
  r.max_tokens = 1000;
  return r;
}

FakeResponse Ok(std::string body) {
  FakeResponse r;
  r.body = std::move(body);
  return r;
}

FakeResponse HttpError(int status, std::string body = "",
                       std::vector<std::pair<std::string, std::string>> headers = {}) {
  FakeResponse r;
  r.status = status;
  r.body = body.empty() ? ApiErrorBody("status " + std::to_string(status)) : std::move(body);
  r.headers = std::move(headers);
  return r;
}

nlohmann::json BodyOf(const FakeRequest& request) { return nlohmann::json::parse(request.body); }

class ProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    setenv("OPENAI_API_KEY", kOpenAiKey, 1);
    setenv("ANTHROPIC_API_KEY", kAnthropicKey, 1);
    unsetenv("VLLM_API_KEY");
  }

  std::unique_ptr<Provider> Make(const std::string& spec, RetryPolicy policy = FastPolicy(),
                                 int max_concurrent = 4) {
    auto model = ParseModelSpec(spec, server_.base_url());
    EXPECT_TRUE(model.ok()) << model.status().message();
    return std::make_unique<Provider>(*model, MakeCurlHttpClient(), policy, PriceTable::Defaults(),
                                      max_concurrent, [this](double s) {
                                        std::lock_guard<std::mutex> lock(mu_);
                                        sleeps_.push_back(s);
                                      });
  }

  std::vector<double> sleeps() {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }

  FakeLlmServer server_;
  std::mutex mu_;
  std::vector<double> sleeps_;
};

TEST_F(ProviderTest, OpenAiReplyWithUsageAndCost) {
  server_.Enqueue("/chat/completions", Ok(OpenAiReply("hello", "stop", 1000, 2000)));
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "hello");
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.input_tokens, 1000);
  EXPECT_EQ(r.output_tokens, 2000);
  EXPECT_DOUBLE_EQ(r.cost_usd, (1000 * 2.0 + 2000 * 8.0) / 1e6);
  EXPECT_EQ(r.attempts, 1);
  ASSERT_EQ(r.exchanges.size(), 1u);
  EXPECT_EQ(r.exchanges[0].status, 200);
  EXPECT_NE(r.exchanges[0].response_body.find("hello"), std::string::npos);
  EXPECT_GT(r.seconds, 0);
  EXPECT_TRUE(sleeps().empty());
}

TEST_F(ProviderTest, OpenAiRequestCarriesModelMessagesLimitsAndKeyInHeaderOnly) {
  server_.Enqueue(Ok(OpenAiReply("x")));
  ChatRequest req = SimpleRequest();
  req.messages.push_back({"assistant", "Here it is."});
  req.messages.push_back({"user", "Faster."});
  ChatReply r = Make("openai:gpt-4.1")->Complete(req);
  ASSERT_TRUE(r.ok) << r.error;
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/chat/completions");
  EXPECT_EQ(requests[0].headers["authorization"], std::string("Bearer ") + kOpenAiKey);
  EXPECT_EQ(requests[0].body.find(kOpenAiKey), std::string::npos);
  EXPECT_EQ(r.exchanges[0].request_body.find(kOpenAiKey), std::string::npos);
  EXPECT_EQ(r.exchanges[0].request_body, requests[0].body);
  auto body = BodyOf(requests[0]);
  EXPECT_EQ(body["model"], "gpt-4.1");
  ASSERT_EQ(body["messages"].size(), 4u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][0]["content"], "You write fast kernels.");
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["messages"][1]["content"], "Write a kernel.");
  EXPECT_EQ(body["messages"][2]["role"], "assistant");
  EXPECT_EQ(body["messages"][3]["content"], "Faster.");
  EXPECT_EQ(body["max_completion_tokens"], 1000);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.5);
  EXPECT_FALSE(body.contains("reasoning_effort"));
}

TEST_F(ProviderTest, SelfHostedServersGetMaxTokensAndNoKeyWhenNoneIsSet) {
  server_.Enqueue(Ok(OpenAiReply("x")));
  ChatRequest req = SimpleRequest();
  req.temperature = -1;
  req.reasoning_effort = "high";
  ChatReply r = Make("vllm:Qwen/Qwen3-32B")->Complete(req);
  ASSERT_TRUE(r.ok) << r.error;
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  auto body = BodyOf(requests[0]);
  EXPECT_EQ(body["model"], "Qwen/Qwen3-32B");
  EXPECT_EQ(body["max_tokens"], 1000);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_EQ(body["reasoning_effort"], "high");
  EXPECT_EQ(r.cost_usd, 0);  // not in the price table
}

TEST_F(ProviderTest, OptionalKeyIsSentWhenSet) {
  setenv("VLLM_API_KEY", "local-key", 1);
  server_.Enqueue(Ok(OpenAiReply("x")));
  ASSERT_TRUE(Make("vllm:m")->Complete(SimpleRequest()).ok);
  EXPECT_EQ(server_.requests()[0].headers["authorization"], "Bearer local-key");
}

TEST_F(ProviderTest, NullContentReadsAsEmptyText) {
  server_.Enqueue(Ok(R"({"choices":[{"message":{"role":"assistant","content":null},)"
                     R"("finish_reason":"stop"}]})"));
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.input_tokens, 0);
}

TEST_F(ProviderTest, AnthropicReplySkipsThinkingAndCountsUsage) {
  server_.Enqueue("/messages",
                  Ok(AnthropicReply("the kernel", "end_turn", 100, 200, "let me think")));
  ChatReply r = Make("anthropic:claude-sonnet-4-5")->Complete(SimpleRequest());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "the kernel");
  EXPECT_EQ(r.finish_reason, "end_turn");
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.input_tokens, 100);
  EXPECT_EQ(r.output_tokens, 200);
  EXPECT_DOUBLE_EQ(r.cost_usd, (100 * 3.0 + 200 * 15.0) / 1e6);
}

TEST_F(ProviderTest, AnthropicRequestCarriesSystemLimitsThinkingAndHeaders) {
  server_.Enqueue(Ok(AnthropicReply("x")));
  ChatRequest req = SimpleRequest();
  req.thinking_budget_tokens = 512;
  ChatReply r = Make("anthropic:claude-sonnet-4-5")->Complete(req);
  ASSERT_TRUE(r.ok) << r.error;
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/messages");
  EXPECT_EQ(requests[0].headers["x-api-key"], kAnthropicKey);
  EXPECT_EQ(requests[0].headers["anthropic-version"], "2023-06-01");
  EXPECT_EQ(requests[0].headers["content-type"], "application/json");
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  EXPECT_EQ(requests[0].body.find(kAnthropicKey), std::string::npos);
  auto body = BodyOf(requests[0]);
  EXPECT_EQ(body["model"], "claude-sonnet-4-5");
  EXPECT_EQ(body["system"], "You write fast kernels.");
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "Write a kernel.");
  EXPECT_EQ(body["max_tokens"], 1000);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.5);
  EXPECT_EQ(body["thinking"]["type"], "enabled");
  EXPECT_EQ(body["thinking"]["budget_tokens"], 512);
}

TEST_F(ProviderTest, AnthropicWithoutThinkingOrSystemOmitsThem) {
  server_.Enqueue(Ok(AnthropicReply("x")));
  ChatRequest req = SimpleRequest();
  req.system.clear();
  ASSERT_TRUE(Make("anthropic:claude-sonnet-4-5")->Complete(req).ok);
  auto body = BodyOf(server_.requests()[0]);
  EXPECT_FALSE(body.contains("system"));
  EXPECT_FALSE(body.contains("thinking"));
}

TEST_F(ProviderTest, TooManyRequestsHonoursRetryAfter) {
  server_.Enqueue(HttpError(429, "", {{"Retry-After", "2"}}));
  server_.Enqueue(Ok(OpenAiReply("done")));
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "done");
  EXPECT_EQ(sleeps(), std::vector<double>{2.0});
  EXPECT_EQ(r.attempts, 2);
  ASSERT_EQ(r.exchanges.size(), 2u);
  EXPECT_EQ(r.exchanges[0].status, 429);
  EXPECT_EQ(r.exchanges[1].status, 200);
}

TEST_F(ProviderTest, RetryAfterIsCappedByMaxDelay) {
  server_.Enqueue(HttpError(429, "", {{"Retry-After", "3600"}}));
  server_.Enqueue(Ok(OpenAiReply("done")));
  ASSERT_TRUE(Make("openai:gpt-4.1")->Complete(SimpleRequest()).ok);
  EXPECT_EQ(sleeps(), std::vector<double>{60.0});
}

TEST_F(ProviderTest, ServerErrorsBackOffExponentially) {
  server_.Enqueue(HttpError(500));
  server_.Enqueue(HttpError(503));
  server_.Enqueue(HttpError(529, ApiErrorBody("Overloaded")));
  server_.Enqueue(Ok(AnthropicReply("finally")));
  ChatReply r = Make("anthropic:claude-sonnet-4-5")->Complete(SimpleRequest());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "finally");
  EXPECT_EQ(r.attempts, 4);
  EXPECT_EQ(sleeps(), (std::vector<double>{1, 2, 4}));
}

TEST_F(ProviderTest, JitterSpreadsTheDelay) {
  RetryPolicy policy = FastPolicy();
  policy.jitter = 0.25;
  server_.Enqueue(HttpError(500));
  server_.Enqueue(HttpError(500));
  server_.Enqueue(Ok(OpenAiReply("ok")));
  ASSERT_TRUE(Make("openai:gpt-4.1", policy)->Complete(SimpleRequest()).ok);
  auto s = sleeps();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_GE(s[0], 0.75);
  EXPECT_LE(s[0], 1.25);
  EXPECT_GE(s[1], 1.5);
  EXPECT_LE(s[1], 2.5);
}

TEST_F(ProviderTest, DroppedConnectionIsRetried) {
  FakeResponse drop;
  drop.drop_connection = true;
  server_.Enqueue(drop);
  server_.Enqueue(Ok(OpenAiReply("after the drop")));
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "after the drop");
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.exchanges[0].status, 0);
  EXPECT_FALSE(r.exchanges[0].transport_error.empty());
  EXPECT_EQ(sleeps(), std::vector<double>{1.0});
}

TEST_F(ProviderTest, ReplyCutShortIsRetried) {
  FakeResponse partial = Ok(OpenAiReply("cut short"));
  partial.partial = true;
  server_.Enqueue(partial);
  server_.Enqueue(Ok(OpenAiReply("whole")));
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "whole");
  EXPECT_EQ(r.attempts, 2);
}

TEST_F(ProviderTest, TimeoutIsRetried) {
  RetryPolicy policy = FastPolicy();
  policy.timeout_seconds = 0.2;
  FakeResponse slow = Ok(OpenAiReply("too late"));
  slow.delay_ms = 5000;
  server_.Enqueue(slow);
  server_.Enqueue(Ok(OpenAiReply("in time")));
  ChatReply r = Make("openai:gpt-4.1", policy)->Complete(SimpleRequest());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "in time");
  EXPECT_EQ(r.exchanges[0].status, 0);
  EXPECT_FALSE(r.exchanges[0].transport_error.empty());
}

TEST_F(ProviderTest, MalformedJsonIsRetried) {
  server_.Enqueue(Ok(R"({"choices": [{"message": )"));
  server_.Enqueue(Ok(R"({"unexpected": true})"));
  server_.Enqueue(Ok(OpenAiReply("good")));
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "good");
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(sleeps(), (std::vector<double>{1, 2}));
}

TEST_F(ProviderTest, UnauthorizedIsNotRetriedAndQuotesTheApi) {
  server_.Enqueue(HttpError(401, ApiErrorBody("Incorrect API key provided: sk-...xyz")));
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_TRUE(sleeps().empty());
  EXPECT_NE(r.error.find("401"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("Incorrect API key provided"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("OPENAI_API_KEY"), std::string::npos) << r.error;
}

TEST_F(ProviderTest, BadRequestIsNotRetried) {
  server_.Enqueue(HttpError(400, ApiErrorBody("max_tokens: must be at most 8192")));
  ChatReply r = Make("anthropic:claude-sonnet-4-5")->Complete(SimpleRequest());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_NE(r.error.find("max_tokens: must be at most 8192"), std::string::npos) << r.error;
  EXPECT_EQ(server_.requests().size(), 1u);
}

// A status that is not retried, met on a retry: the error says on which
// attempt, so that whoever quotes it need not count again.
TEST_F(ProviderTest, AFailureAfterARetrySaysWhichAttempt) {
  server_.Enqueue(HttpError(503, ApiErrorBody("busy")));
  server_.Enqueue(HttpError(400, ApiErrorBody("max_tokens: must be at most 8192")));
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_NE(r.error.find("max_tokens: must be at most 8192"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("(on attempt 2)"), std::string::npos) << r.error;
}

TEST_F(ProviderTest, GivesUpAfterMaxAttempts) {
  for (int i = 0; i < 4; ++i) server_.Enqueue(HttpError(503, ApiErrorBody("busy")));
  server_.Enqueue(Ok(OpenAiReply("never reached")));
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.attempts, 4);
  EXPECT_EQ(r.exchanges.size(), 4u);
  EXPECT_EQ(server_.requests().size(), 4u);
  EXPECT_EQ(sleeps(), (std::vector<double>{1, 2, 4}));
  EXPECT_NE(r.error.find("4 attempts"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("503"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("busy"), std::string::npos) << r.error;
  EXPECT_EQ(r.cost_usd, 0);
}

TEST_F(ProviderTest, TruncatedRepliesAreOkAndMarked) {
  server_.Enqueue(Ok(OpenAiReply("half a kern", "length")));
  ChatReply openai = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  ASSERT_TRUE(openai.ok) << openai.error;
  EXPECT_TRUE(openai.truncated);
  EXPECT_EQ(openai.finish_reason, "length");
  EXPECT_EQ(openai.text, "half a kern");

  server_.Enqueue(Ok(AnthropicReply("half a kern", "max_tokens")));
  ChatReply anthropic = Make("anthropic:claude-sonnet-4-5")->Complete(SimpleRequest());
  ASSERT_TRUE(anthropic.ok) << anthropic.error;
  EXPECT_TRUE(anthropic.truncated);
  EXPECT_EQ(anthropic.finish_reason, "max_tokens");
}

TEST_F(ProviderTest, MissingKeyNamesTheVariableAndSendsNothing) {
  unsetenv("OPENAI_API_KEY");
  ChatReply r = Make("openai:gpt-4.1")->Complete(SimpleRequest());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("OPENAI_API_KEY"), std::string::npos) << r.error;
  EXPECT_EQ(r.attempts, 0);
  EXPECT_TRUE(server_.requests().empty());

  setenv("ANTHROPIC_API_KEY", "", 1);
  ChatReply a = Make("anthropic:claude-sonnet-4-5")->Complete(SimpleRequest());
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.error.find("ANTHROPIC_API_KEY"), std::string::npos) << a.error;
}

TEST_F(ProviderTest, InvalidUtf8InAMessageIsSentNotThrown) {
  server_.Enqueue(Ok(OpenAiReply("x")));
  ChatRequest req = SimpleRequest();
  req.messages[0].text = "compiler said: \xff\xfe bad bytes";
  ChatReply r = Make("openai:gpt-4.1")->Complete(req);
  EXPECT_TRUE(r.ok) << r.error;
}

TEST_F(ProviderTest, AtMostMaxConcurrentRequestsInFlight) {
  server_.SetHandler([](const FakeRequest&) {
    FakeResponse r = Ok(OpenAiReply("slow"));
    r.delay_ms = 200;
    return r;
  });
  auto provider = Make("openai:gpt-4.1", FastPolicy(), /*max_concurrent=*/2);
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] { ok[i] = provider->Complete(SimpleRequest()).ok; });
  }
  for (auto& t : threads) t.join();
  for (int v : ok) EXPECT_EQ(v, 1);
  EXPECT_EQ(server_.requests().size(), 8u);
  EXPECT_EQ(server_.max_in_progress(), 2);  // the limit, and reached
}

}  // namespace
}  // namespace hone
