#include "core/json_text.h"

#include <algorithm>

namespace hone {

std::string ValidUtf8(std::string_view text) {
  // ASCII, most text, is UTF-8 as it is.
  if (std::all_of(text.begin(), text.end(), [](char c) { return (c & 0x80) == 0; }))
    return std::string(text);
  // nlohmann's own decoder decides what is valid, so JSON and this agree:
  // a JSON string of the text, dumped with replacement, then read back.
  const std::string quoted = JsonText(nlohmann::json(std::string(text)));
  return nlohmann::json::parse(quoted).get<std::string>();
}

std::string_view Utf8Prefix(std::string_view text, size_t max) {
  if (text.size() <= max) return text;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut);
}

}  // namespace hone
