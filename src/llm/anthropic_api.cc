#include "llm/anthropic_api.h"

#include <nlohmann/json.hpp>

#include "core/json_text.h"

namespace hone {
namespace {

std::string AnthropicBody(const ModelSpec& model, const ChatRequest& request) {
  nlohmann::json messages = nlohmann::json::array();
  for (const ChatMessage& m : request.messages) {
    messages.push_back({{"role", m.role}, {"content", m.text}});
  }
  nlohmann::json body = {
      {"model", model.model}, {"messages", messages}, {"max_tokens", request.max_tokens}};
  if (!request.system.empty()) body["system"] = request.system;
  if (request.temperature >= 0) body["temperature"] = request.temperature;
  if (request.thinking_budget_tokens > 0) {
    body["thinking"] = {{"type", "enabled"}, {"budget_tokens", request.thinking_budget_tokens}};
  }
  // Invalid UTF-8 in a message (compiler output, say) becomes U+FFFD, not a throw.
  return JsonText(body);
}

}  // namespace

HttpRequest AnthropicHttpRequest(const ModelSpec& model, const ChatRequest& request,
                                 const std::string& api_key, std::chrono::milliseconds timeout) {
  HttpRequest http;
  http.url = model.base_url + "/messages";
  http.headers.emplace_back("content-type", "application/json");
  http.headers.emplace_back("anthropic-version", "2023-06-01");
  if (!api_key.empty()) http.headers.emplace_back("x-api-key", api_key);
  http.body = AnthropicBody(model, request);
  http.timeout = timeout;
  return http;
}

Result<ApiReply> ParseAnthropicReply(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) return Status::Invalid("the reply is not valid JSON");
  const nlohmann::json* content = JsonField(j, "content");
  if (!content || !content->is_array()) return Status::Invalid("the reply has no content array");
  ApiReply reply;
  for (const nlohmann::json& block : *content) {
    if (JsonString(block, "type") == "text") reply.text += JsonString(block, "text");
  }
  reply.finish_reason = JsonString(j, "stop_reason");
  reply.truncated = reply.finish_reason == "max_tokens";
  if (const nlohmann::json* usage = JsonField(j, "usage")) {
    reply.input_tokens = JsonInt(*usage, "input_tokens");
    reply.output_tokens = JsonInt(*usage, "output_tokens");
  }
  return reply;
}

}  // namespace hone
