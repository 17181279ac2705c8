#include "core/json_text.h"

namespace hone {

std::string ValidUtf8(std::string_view text) {
  // nlohmann's own decoder decides what is valid, so JSON and this agree:
  // a JSON string of the text, dumped with replacement, then read back.
  const std::string quoted = JsonText(nlohmann::json(std::string(text)));
  return nlohmann::json::parse(quoted).get<std::string>();
}

}  // namespace hone
