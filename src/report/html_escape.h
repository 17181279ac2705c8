// Text made safe to inline in an HTML page (report/html_report.h): as
// element content or an attribute, as a <script>'s program, as a <script>'s
// JSON. Each returns a new string; pure functions; thread-safe; any input is
// fine.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hone {

// Text as HTML (& < > " ' escaped): safe in element content and attributes.
std::string HtmlEscape(std::string_view text);
// Script text that cannot end its <script> element early: "</script" (any
// case) becomes "<\/script" and "<!--" becomes "<\!--". Both rewrites keep
// the meaning inside JavaScript strings, regular expressions and comments,
// the only places such text appears in a program.
std::string ScriptSafe(std::string_view js);
// JSON for a <script type="application/json">: '<', '>' and '&' written as
// \u escapes (valid JSON, the same value), so no tag can occur in it.
std::string ScriptSafeJson(const nlohmann::json& j);

}  // namespace hone
