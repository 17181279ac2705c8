// Chat completions from an LLM endpoint: OpenAI-compatible Chat Completions
// (OpenAI, vLLM, SGLang, Ollama, llama.cpp's server, OpenRouter, DeepSeek,
// Together, ...) and Anthropic's Messages API.
//
// A model is named "provider:model" ("openai:gpt-4.1", "anthropic:claude-sonnet-4-5",
// "vllm:Qwen/Qwen3-32B"); the provider picks the API, the default base URL
// and the environment variable holding the key. Failures are values: a
// ChatReply with ok == false and a reason, after the retries the policy
// allows (429, 5xx, timeouts and dropped connections are retried with
// exponential backoff and jitter, honouring Retry-After). Every attempt's
// request and response are kept in the reply for the run record.
// Provider is thread-safe and lets at most `max_concurrent` requests be in
// flight at once; further callers wait.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "llm/http_client.h"

namespace hone {

struct ModelSpec {
  std::string provider;           // "openai", "anthropic", "vllm", "ollama", ...
  std::string model;              // passed to the API as is
  std::string api;                // "openai" (Chat Completions) or "anthropic" (Messages)
  std::string base_url;           // e.g. "https://api.openai.com/v1" (no trailing slash)
  std::string api_key_env;        // e.g. "OPENAI_API_KEY"; empty when none is read
  bool api_key_required = false;  // false: the key is sent only when the variable is set
  std::string text() const { return provider + ":" + model; }
};

// Parses "provider:model", split at the first ':' (the model may hold ':'
// and '/': "ollama:llama3.1:8b", "vllm:Qwen/Qwen3-32B"). `base_url`
// overrides the provider's default (for a self-hosted server); without one,
// $OPENAI_BASE_URL (openai) and $ANTHROPIC_BASE_URL (anthropic; "/v1" is
// appended when missing, as Anthropic's SDKs read it) are honoured. Unknown
// providers are an error naming the known ones; "openai-compatible:MODEL"
// needs a base URL and sends $HONE_LLM_API_KEY when it is set.
Result<ModelSpec> ParseModelSpec(const std::string& text, const std::string& base_url = "");

struct ChatMessage {
  std::string role;  // "user" or "assistant"
  std::string text;
};

struct ChatRequest {
  std::string system;
  std::vector<ChatMessage> messages;
  double temperature = -1;  // < 0: the endpoint's default
  int max_tokens = 8192;
  std::string reasoning_effort;    // "", "low", "medium", "high" (OpenAI-style)
  int thinking_budget_tokens = 0;  // > 0: Anthropic extended thinking budget
  // When set and true (from any thread), the call ends soon: no further
  // attempt, no further wait, the transfer in progress abandoned; the reply
  // is `cancelled`. Not owned; must outlive the call.
  const std::atomic<bool>* cancel = nullptr;
};

struct ChatExchange {  // one HTTP attempt, as sent and received
  std::string request_body;
  int status = 0;
  std::string response_body;
  std::string transport_error;
  double seconds = 0;
};

struct ChatReply {
  bool ok = false;
  std::string error;          // why not ok, after all retries
  std::string text;           // the assistant's text (thinking excluded)
  std::string finish_reason;  // as the API said it ("stop", "length", "end_turn", "max_tokens")
  bool truncated = false;     // stopped by the token limit
  bool cancelled = false;     // ChatRequest::cancel ended it: no reply, and not the model's fault
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0;  // from the price table; 0 when the model is not in it
  int attempts = 0;
  double seconds = 0;  // all attempts and waits
  std::vector<ChatExchange> exchanges;
};

struct RetryPolicy {
  int max_attempts = 6;
  double base_delay_seconds = 1;  // doubled per retry
  double max_delay_seconds = 60;  // also caps Retry-After
  double jitter = 0.25;           // +-25% random spread on each delay
  double timeout_seconds = 600;   // per attempt, the whole HTTP exchange
};

// US dollars per million tokens, per model ("provider:model" or "model").
class PriceTable {
 public:
  // The built-in prices of a few well-known models (may be out of date).
  static PriceTable Defaults();
  // A TOML file: [prices."openai:gpt-4.1"] input = 2.0  output = 8.0
  // (both required, non-negative numbers). The table holds the file's
  // entries only; Defaults().Merge(loaded) gives both, the file winning.
  // Errors name the file and the entry; exit code 2 territory.
  static Result<PriceTable> Load(const std::filesystem::path& file);
  void Set(const std::string& model, double input_per_mtok, double output_per_mtok);
  void Merge(const PriceTable& other);  // other's entries win
  bool Has(const ModelSpec& model) const;
  double Cost(const ModelSpec& model, int64_t input_tokens, int64_t output_tokens) const;

 private:
  struct Price {
    double input = 0, output = 0;
  };
  std::map<std::string, Price> prices_;
};

// Complete(): missing keys (the reply names the environment variable; no
// HTTP call is made), HTTP errors, transport errors and malformed replies all
// come back as a ChatReply with ok == false. Retried: 408, 429, 5xx (529
// included), transport errors (timeouts, refused and dropped connections)
// and 2xx replies that are not the JSON the API promises (proxies truncate).
// Not retried: other statuses (400, 401, 403, 404, ...); the error quotes the
// API's own message. An error after more than one attempt says how many,
// once: "(still failing after 4 attempts)" when every attempt was retried,
// "(on attempt 2)" when a retry got a status that is not retried. Waits go
// through `sleep` (default: sleep_for), so tests
// record them instead. The API key travels only in headers, never in the
// recorded request bodies. A concurrency slot is held for the whole call,
// retries and waits included. `http` is shared and must be thread-safe.
class Provider {
 public:
  using SleepFn = std::function<void(double seconds)>;
  Provider(ModelSpec model, std::shared_ptr<HttpClient> http, RetryPolicy retry, PriceTable prices,
           int max_concurrent, SleepFn sleep = {});

  ChatReply Complete(const ChatRequest& request);
  const ModelSpec& model() const { return model_; }
  // Told, from the calling thread, each time an attempt failed and the call
  // waits to retry ("HTTP 429 ...: retrying in 4.0 s, attempt 2 of 6"), so
  // a person sees rate limits as they happen. Must be thread-safe. Set it
  // before the first call.
  using NoticeFn = std::function<void(const std::string& line)>;
  void SetRetryNotice(NoticeFn notice) { notice_ = std::move(notice); }

 private:
  void AcquireSlot();
  void ReleaseSlot();
  ChatReply Attempts(const ChatRequest& request);  // the retry loop, inside a slot
  // Waits `seconds`, in short steps when the request can be cancelled;
  // false when it was.
  bool Wait(const ChatRequest& request, double seconds);

  ModelSpec model_;
  std::shared_ptr<HttpClient> http_;
  RetryPolicy retry_;
  PriceTable prices_;
  SleepFn sleep_;
  bool own_sleep_;  // sleep_ is a real sleep (not a test's), so it may be cut short
  NoticeFn notice_;
  std::mutex mu_;
  std::condition_variable slot_free_;
  int max_concurrent_, in_flight_ = 0;
};

}  // namespace hone
