#include "report/html_escape.h"

#include <cctype>

#include "core/json_text.h"

namespace hone {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ScriptSafe(std::string_view js) {
  std::string out;
  out.reserve(js.size());
  for (size_t i = 0; i < js.size(); ++i) {
    auto at = [&](std::string_view word) {
      if (js.size() - i < word.size()) return false;
      for (size_t k = 0; k < word.size(); ++k)
        if (std::tolower(static_cast<unsigned char>(js[i + k])) != word[k]) return false;
      return true;
    };
    if (at("</script")) {
      out += "<\\/";
      ++i;  // the '/' is written; the loop goes on after it
      continue;
    }
    if (at("<!--")) {
      out += "<\\!";
      ++i;
      continue;
    }
    out += js[i];
  }
  return out;
}

std::string ScriptSafeJson(const nlohmann::json& j) {
  std::string text = JsonText(j);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

}  // namespace hone
