#include "llm/api_reply.h"

#include <nlohmann/json.hpp>

namespace hone {
namespace {

constexpr size_t kMaxQuoted = 300;

std::string Shorten(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (s.size() > kMaxQuoted) s = s.substr(0, kMaxQuoted) + "...";
  return s;
}

}  // namespace

const nlohmann::json* JsonField(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string JsonString(const nlohmann::json& j, const char* key) {
  const nlohmann::json* v = JsonField(j, key);
  return v && v->is_string() ? v->get<std::string>() : "";
}

int64_t JsonInt(const nlohmann::json& j, const char* key) {
  const nlohmann::json* v = JsonField(j, key);
  return v && v->is_number_integer() ? v->get<int64_t>() : 0;
}

std::string ApiErrorMessage(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded()) {
    const nlohmann::json* error = JsonField(j, "error");
    if (error && error->is_object() && !JsonString(*error, "message").empty()) {
      return Shorten(JsonString(*error, "message"));
    }
    if (!JsonString(j, "error").empty()) return Shorten(JsonString(j, "error"));
    if (!JsonString(j, "message").empty()) return Shorten(JsonString(j, "message"));
  }
  return Shorten(body);
}

}  // namespace hone
