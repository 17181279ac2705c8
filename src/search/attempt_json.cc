#include "search/attempt_json.h"

namespace hone {

nlohmann::json PromptToJson(const Proposal& p) {
  nlohmann::json m = nlohmann::json::array();
  for (const auto& msg : p.messages) m.push_back({{"role", msg.role}, {"text", msg.text}});
  return {{"system", p.system}, {"messages", m}};
}

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

}  // namespace hone
