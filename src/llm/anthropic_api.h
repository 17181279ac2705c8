// Anthropic's Messages API wire format. Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <string>

#include "core/status.h"
#include "llm/api_reply.h"
#include "llm/http_client.h"
#include "llm/provider.h"

namespace hone {

// POST {base_url}/messages with x-api-key (when non-empty; never in the
// body) and anthropic-version 2023-06-01. Extended thinking is asked for
// when request.thinking_budget_tokens > 0.
HttpRequest AnthropicHttpRequest(const ModelSpec& model, const ChatRequest& request,
                                 const std::string& api_key, std::chrono::milliseconds timeout);

// A 2xx body: the "text" blocks of content[] joined (thinking blocks
// skipped), stop_reason, usage. An error when the body is not JSON or has no
// content array.
Result<ApiReply> ParseAnthropicReply(const std::string& body);

}  // namespace hone
