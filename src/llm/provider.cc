#include "llm/provider.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <random>
#include <thread>

#include "core/wording.h"
#include "llm/anthropic_api.h"
#include "llm/api_reply.h"
#include "llm/openai_api.h"
#include "llm/retry.h"

namespace hone {
namespace {

// What one HTTP attempt came to.
struct Outcome {
  enum Kind { kOk, kRetry, kFail };
  static Outcome Ok(ApiReply reply) { return Outcome(kOk, std::move(reply), ""); }
  static Outcome Retry(std::string problem) { return Outcome(kRetry, {}, std::move(problem)); }
  static Outcome Fail(std::string problem) { return Outcome(kFail, {}, std::move(problem)); }

  Kind kind;
  ApiReply reply;                     // kOk
  std::string problem;                // kRetry, kFail: one line for a person
  std::optional<double> retry_after;  // kRetry: the server's own wish

 private:
  Outcome(Kind k, ApiReply r, std::string p)
      : kind(k), reply(std::move(r)), problem(std::move(p)) {}
};

std::string ApiKey(const ModelSpec& model) {
  if (model.api_key_env.empty()) return "";
  const char* key = std::getenv(model.api_key_env.c_str());
  return key ? key : "";
}

HttpRequest BuildRequest(const ModelSpec& model, const ChatRequest& request, const std::string& key,
                         double timeout_seconds) {
  auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
  return model.api == "anthropic" ? AnthropicHttpRequest(model, request, key, timeout)
                                  : OpenAiHttpRequest(model, request, key, timeout);
}

Result<ApiReply> ParseReply(const ModelSpec& model, const std::string& body) {
  return model.api == "anthropic" ? ParseAnthropicReply(body) : ParseOpenAiReply(body);
}

Outcome TransportFailure(const HttpResponse& r) {
  if (r.timed_out) {
    return Outcome::Retry("no reply within " + TenthsOfSeconds(r.seconds) + " (" +
                          r.transport_error + ")");
  }
  return Outcome::Retry("transport error: " + r.transport_error);
}

Outcome ParsedReply(const ModelSpec& model, const HttpResponse& r) {
  auto parsed = ParseReply(model, r.body);
  if (parsed.ok()) return Outcome::Ok(std::move(parsed).value());
  return Outcome::Retry("malformed reply (HTTP " + std::to_string(r.status) +
                        "): " + parsed.status().message() + ": " + ApiErrorMessage(r.body));
}

Outcome HttpFailure(const ModelSpec& model, const HttpResponse& r) {
  std::string problem = "HTTP " + std::to_string(r.status) + " from " + model.base_url + ": " +
                        ApiErrorMessage(r.body);
  if ((r.status == 401 || r.status == 403) && !model.api_key_env.empty()) {
    problem += " (check $" + model.api_key_env + ")";
  }
  if (!IsRetryableStatus(r.status)) return Outcome::Fail(problem);
  Outcome o = Outcome::Retry(problem);
  o.retry_after = RetryAfterSeconds(r.headers, std::time(nullptr));
  return o;
}

Outcome Judge(const ModelSpec& model, const HttpResponse& r) {
  if (r.status == 0) return TransportFailure(r);
  if (r.status >= 200 && r.status < 300) return ParsedReply(model, r);
  return HttpFailure(model, r);
}

ChatExchange Record(const HttpRequest& request, const HttpResponse& response) {
  return ChatExchange{request.body, response.status, response.body, response.transport_error,
                      response.seconds};
}

// Uniform in [-1, 1], from a per-thread generator.
double RandomSpread() {
  thread_local std::mt19937 rng(std::random_device{}());
  return std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
}

void SleepFor(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void Accept(const ModelSpec& model, const PriceTable& prices, ApiReply api, ChatReply& reply) {
  reply.ok = true;
  reply.text = std::move(api.text);
  reply.finish_reason = std::move(api.finish_reason);
  reply.truncated = api.truncated;
  reply.input_tokens = api.input_tokens;
  reply.output_tokens = api.output_tokens;
  reply.cost_usd = prices.Cost(model, api.input_tokens, api.output_tokens);
}

bool IsCancelled(const ChatRequest& r) { return r.cancel && r.cancel->load(); }

ChatReply& MarkCancelled(ChatReply& reply) {
  reply.ok = false;
  reply.cancelled = true;
  reply.error = "cancelled: the search stopped before a reply came";
  return reply;
}

}  // namespace

Provider::Provider(ModelSpec model, std::shared_ptr<HttpClient> http, RetryPolicy retry,
                   PriceTable prices, int max_concurrent, SleepFn sleep)
    : model_(std::move(model)),
      http_(std::move(http)),
      retry_(retry),
      prices_(std::move(prices)),
      sleep_(sleep ? sleep : SleepFn(SleepFor)),
      own_sleep_(!sleep),
      max_concurrent_(std::max(1, max_concurrent)) {
  HONE_CHECK(http_ != nullptr, "Provider needs an HttpClient");
}

void Provider::AcquireSlot() {
  std::unique_lock<std::mutex> lock(mu_);
  slot_free_.wait(lock, [this] { return in_flight_ < max_concurrent_; });
  ++in_flight_;
}

void Provider::ReleaseSlot() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_;
  }
  slot_free_.notify_one();
}

ChatReply Provider::Complete(const ChatRequest& request) {
  AcquireSlot();
  struct Release {
    Provider* p;
    ~Release() { p->ReleaseSlot(); }
  } release{this};
  auto start = std::chrono::steady_clock::now();
  ChatReply reply = Attempts(request);
  reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return reply;
}

ChatReply Provider::Attempts(const ChatRequest& request) {
  ChatReply reply;
  std::string key = ApiKey(model_);
  if (model_.api_key_required && key.empty()) {
    reply.error = "$" + model_.api_key_env + " is not set: " + model_.text() +
                  " needs an API key in that environment variable";
    return reply;
  }
  HttpRequest http = BuildRequest(model_, request, key, retry_.timeout_seconds);
  http.cancel = request.cancel;
  int max_attempts = std::max(1, retry_.max_attempts);
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    if (IsCancelled(request)) return MarkCancelled(reply);
    HttpResponse response = http_->Post(http);
    reply.attempts = attempt;
    reply.exchanges.push_back(Record(http, response));
    if (response.cancelled || IsCancelled(request)) return MarkCancelled(reply);
    Outcome outcome = Judge(model_, response);
    if (outcome.kind == Outcome::kOk) {
      Accept(model_, prices_, std::move(outcome.reply), reply);
      return reply;
    }
    if (outcome.kind == Outcome::kFail) {
      // After retries, the error says how many attempts it took, as a
      // call that is still failing does: it is quoted alone.
      reply.error = outcome.problem;
      if (attempt > 1) reply.error += " (on attempt " + std::to_string(attempt) + ")";
      return reply;
    }
    if (attempt == max_attempts) {
      reply.error = outcome.problem + " (still failing after " + std::to_string(attempt) +
                    (attempt == 1 ? " attempt)" : " attempts)");
      return reply;
    }
    double wait = outcome.retry_after ? std::min(*outcome.retry_after, retry_.max_delay_seconds)
                                      : BackoffSeconds(retry_, attempt, RandomSpread());
    if (notice_)
      notice_(outcome.problem + ": retrying in " + TenthsOfSeconds(wait) + " (attempt " +
              std::to_string(attempt + 1) + " of " + std::to_string(max_attempts) + ")");
    if (!Wait(request, wait)) return MarkCancelled(reply);
  }
  return reply;
}

bool Provider::Wait(const ChatRequest& request, double seconds) {
  // A test's sleep records the whole wait; a real one is cut into steps
  // so that a cancel ends it.
  if (!request.cancel || !own_sleep_) {
    sleep_(seconds);
    return !IsCancelled(request);
  }
  constexpr double kStep = 0.1;
  for (double left = seconds; left > 0; left -= kStep) {
    if (IsCancelled(request)) return false;
    sleep_(std::min(kStep, left));
  }
  return !IsCancelled(request);
}

}  // namespace hone
