// JSON-RPC 2.0 as the Model Context Protocol uses it: one message per
// line on stdio, one per POST body over HTTP (no batches since MCP
// 2025-06-18). Parsing sorts a message into request, notification or
// response, or says which error response the sender gets; building gives
// the three kinds of message a server sends.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hone::mcp {

// The error codes of JSON-RPC 2.0 (and MCP's use of them).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

struct RpcMessage {
  enum class Kind { kRequest, kNotification, kResponse };
  Kind kind = Kind::kRequest;
  nlohmann::json id;  // a request's or response's id (string or integer)
  std::string method;
  nlohmann::json params = nlohmann::json::object();  // absent params read as {}
  nlohmann::json result, error;                      // a response's
};

// A message, or the error response to send instead (its id null when the
// message's own could not be read). Never throws.
struct RpcParsed {
  bool ok = false;
  RpcMessage message;
  nlohmann::json error_reply;  // when !ok
};
RpcParsed ParseRpc(std::string_view text);
RpcParsed RpcFromJson(const nlohmann::json& j);

// A client's field read without throwing (nlohmann's value() throws when
// the field has another type or `j` is not an object): the string, object
// or array at `key`, or "", {} or [] when `j` is not an object or the
// field is absent or of another type.
std::string StringField(const nlohmann::json& j, const char* key);
nlohmann::json ObjectField(const nlohmann::json& j, const char* key);
nlohmann::json ArrayField(const nlohmann::json& j, const char* key);

nlohmann::json RpcResult(const nlohmann::json& id, nlohmann::json result);
nlohmann::json RpcError(const nlohmann::json& id, int code, const std::string& message);
nlohmann::json RpcNotification(const std::string& method, nlohmann::json params);
nlohmann::json RpcRequest(const nlohmann::json& id, const std::string& method,
                          nlohmann::json params);

}  // namespace hone::mcp
