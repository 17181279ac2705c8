// The OpenAI Chat Completions wire format, spoken by OpenAI and by most
// other endpoints (vLLM, SGLang, Ollama, llama.cpp, OpenRouter, DeepSeek,
// Together). Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <string>

#include "core/status.h"
#include "llm/api_reply.h"
#include "llm/http_client.h"
#include "llm/provider.h"

namespace hone {

// POST {base_url}/chat/completions. The key goes into an Authorization
// header, and only when it is non-empty; never into the body. OpenAI itself
// gets "max_completion_tokens", every other provider "max_tokens".
HttpRequest OpenAiHttpRequest(const ModelSpec& model, const ChatRequest& request,
                              const std::string& api_key, std::chrono::milliseconds timeout);

// A 2xx body: choices[0].message.content (null reads as ""), finish_reason,
// usage. An error when the body is not JSON or has no choices[0].message.
Result<ApiReply> ParseOpenAiReply(const std::string& body);

}  // namespace hone
