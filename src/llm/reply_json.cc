#include "llm/reply_json.h"

namespace hone {

nlohmann::json ExchangesToJson(const ChatReply& r) {
  nlohmann::json ex = nlohmann::json::array();
  for (const auto& e : r.exchanges)
    ex.push_back({{"request", e.request_body},
                  {"status", e.status},
                  {"response", e.response_body},
                  {"transport_error", e.transport_error},
                  {"seconds", e.seconds}});
  return ex;
}

nlohmann::json ReplyToJson(const ChatReply& r) {
  return {{"ok", r.ok},
          {"error", r.error},
          {"text", r.text},
          {"finish_reason", r.finish_reason},
          {"truncated", r.truncated},
          {"input_tokens", r.input_tokens},
          {"output_tokens", r.output_tokens},
          {"cost_usd", r.cost_usd},
          {"attempts", r.attempts},
          {"seconds", r.seconds},
          {"exchanges", ExchangesToJson(r)}};
}

}  // namespace hone
