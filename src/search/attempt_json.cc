#include "search/attempt_json.h"

namespace hone {

nlohmann::json PromptToJson(const Proposal& p) {
  nlohmann::json m = nlohmann::json::array();
  for (const auto& msg : p.messages) m.push_back({{"role", msg.role}, {"text", msg.text}});
  return {{"system", p.system}, {"messages", m}};
}

}  // namespace hone
