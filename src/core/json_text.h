// JSON as text, never an exception: every string hone puts in JSON may come
// from a compiler, a candidate or a model, and any of them can hold bytes
// that are not UTF-8 (a Latin-1 comment gcc quotes, random bytes offered as
// a candidate). nlohmann's dump() throws on those (type_error 316), which
// ended hone with "terminate called"; here each invalid byte becomes U+FFFD.
// Thread-safe; pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hone {

// `j` as text: compact (`indent` -1) or indented by `indent` spaces.
inline std::string JsonText(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// `text` with every byte sequence that is not UTF-8 replaced by U+FFFD, for
// what goes to SQLite (store/sqlite_db.h binds text through it) or a
// terminal (report/verdict_text.h) rather than through JSON. Valid text
// comes back unchanged.
std::string ValidUtf8(std::string_view text);

// The first `max` bytes of `text`, or fewer so that no UTF-8 character is
// cut in two: a cut that would fall on a continuation byte backs up to the
// start of its character. For text shortened to fit a line or a cap.
std::string_view Utf8Prefix(std::string_view text, size_t max);

}  // namespace hone
