// What the provider needs from one successful API response, whichever API it
// came from, and the small JSON readers both API parsers share.
//
// The readers never throw: a field that is missing or of another type reads
// as empty / zero / null, and the parsers decide what that means.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace hone {

struct ApiReply {
  std::string text;           // the assistant's text, thinking excluded
  std::string finish_reason;  // as the API said it; "" when it said nothing
  bool truncated = false;     // stopped by the token limit
  int64_t input_tokens = 0, output_tokens = 0;
};

// The field `key` of `j` when `j` is an object holding it, else nullptr.
const nlohmann::json* JsonField(const nlohmann::json& j, const char* key);
// The string at `key`, or "" when it is absent or not a string.
std::string JsonString(const nlohmann::json& j, const char* key);
// The integer at `key`, or 0 when it is absent or not an integer.
int64_t JsonInt(const nlohmann::json& j, const char* key);

// The human-readable message of an API error body: error.message (OpenAI,
// Anthropic and most compatible servers), a string "error", or "message";
// else the start of the body itself (trimmed to a line's length).
std::string ApiErrorMessage(const std::string& body);

}  // namespace hone
