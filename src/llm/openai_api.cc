#include "llm/openai_api.h"

#include <nlohmann/json.hpp>

#include "core/json_text.h"

namespace hone {
namespace {

nlohmann::json Messages(const ChatRequest& request) {
  nlohmann::json messages = nlohmann::json::array();
  if (!request.system.empty()) {
    messages.push_back({{"role", "system"}, {"content", request.system}});
  }
  for (const ChatMessage& m : request.messages) {
    messages.push_back({{"role", m.role}, {"content", m.text}});
  }
  return messages;
}

std::string OpenAiBody(const ModelSpec& model, const ChatRequest& request) {
  nlohmann::json body = {{"model", model.model}, {"messages", Messages(request)}};
  const char* max_key = model.provider == "openai" ? "max_completion_tokens" : "max_tokens";
  if (request.max_tokens > 0) body[max_key] = request.max_tokens;
  if (request.temperature >= 0) body["temperature"] = request.temperature;
  if (!request.reasoning_effort.empty()) body["reasoning_effort"] = request.reasoning_effort;
  // Invalid UTF-8 in a message (compiler output, say) becomes U+FFFD, not a throw.
  return JsonText(body);
}

}  // namespace

HttpRequest OpenAiHttpRequest(const ModelSpec& model, const ChatRequest& request,
                              const std::string& api_key, std::chrono::milliseconds timeout) {
  HttpRequest http;
  http.url = model.base_url + "/chat/completions";
  http.headers.emplace_back("Content-Type", "application/json");
  if (!api_key.empty()) http.headers.emplace_back("Authorization", "Bearer " + api_key);
  http.body = OpenAiBody(model, request);
  http.timeout = timeout;
  return http;
}

Result<ApiReply> ParseOpenAiReply(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) return Status::Invalid("the reply is not valid JSON");
  const nlohmann::json* choices = JsonField(j, "choices");
  if (!choices || !choices->is_array() || choices->empty()) {
    return Status::Invalid("the reply has no choices");
  }
  const nlohmann::json& choice = (*choices)[0];
  const nlohmann::json* message = JsonField(choice, "message");
  if (!message || !message->is_object()) return Status::Invalid("choices[0] has no message");
  const nlohmann::json* content = JsonField(*message, "content");
  if (content && !content->is_null() && !content->is_string()) {
    return Status::Invalid("choices[0].message.content is not a string");
  }
  ApiReply reply;
  reply.text = JsonString(*message, "content");
  reply.finish_reason = JsonString(choice, "finish_reason");
  reply.truncated = reply.finish_reason == "length";
  if (const nlohmann::json* usage = JsonField(j, "usage")) {
    reply.input_tokens = JsonInt(*usage, "prompt_tokens");
    reply.output_tokens = JsonInt(*usage, "completion_tokens");
  }
  return reply;
}

}  // namespace hone
