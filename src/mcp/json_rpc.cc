#include "mcp/json_rpc.h"

namespace hone::mcp {
namespace {

bool IsValidId(const nlohmann::json& id) {
  return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

RpcParsed Refused(const nlohmann::json& id, int code, const std::string& why) {
  RpcParsed p;
  p.error_reply = RpcError(id, code, why);
  return p;
}

}  // namespace

RpcParsed ParseRpc(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Refused(nullptr, kParseError, "parse error: not JSON");
  return RpcFromJson(j);
}

RpcParsed RpcFromJson(const nlohmann::json& j) {
  if (j.is_array())
    return Refused(nullptr, kInvalidRequest, "batches are not supported (MCP 2025-06-18)");
  if (!j.is_object()) return Refused(nullptr, kInvalidRequest, "a message must be an object");
  nlohmann::json id = j.contains("id") ? j["id"] : nlohmann::json();
  if (StringField(j, "jsonrpc") != "2.0")
    return Refused(IsValidId(id) ? id : nullptr, kInvalidRequest, "jsonrpc must be \"2.0\"");
  RpcParsed p;
  RpcMessage& m = p.message;
  if (j.contains("method")) {
    if (!j["method"].is_string()) return Refused(id, kInvalidRequest, "method must be a string");
    m.method = j["method"].get<std::string>();
    if (j.contains("params")) {
      if (!j["params"].is_object()) return Refused(id, kInvalidParams, "params must be an object");
      m.params = j["params"];
    }
    if (!j.contains("id")) {
      m.kind = RpcMessage::Kind::kNotification;
    } else if (!IsValidId(id)) {
      return Refused(nullptr, kInvalidRequest, "id must be a string or an integer");
    } else {
      m.kind = RpcMessage::Kind::kRequest;
      m.id = id;
    }
    p.ok = true;
    return p;
  }
  if (j.contains("result") || j.contains("error")) {
    m.kind = RpcMessage::Kind::kResponse;
    m.id = id;
    m.result = j.value("result", nlohmann::json());
    m.error = j.value("error", nlohmann::json());
    p.ok = true;
    return p;
  }
  return Refused(IsValidId(id) ? id : nullptr, kInvalidRequest,
                 "neither a request (method) nor a response (result or error)");
}

namespace {

const nlohmann::json* Field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

}  // namespace

std::string StringField(const nlohmann::json& j, const char* key) {
  const nlohmann::json* f = Field(j, key);
  return f && f->is_string() ? f->get<std::string>() : std::string();
}

nlohmann::json ObjectField(const nlohmann::json& j, const char* key) {
  const nlohmann::json* f = Field(j, key);
  return f && f->is_object() ? *f : nlohmann::json::object();
}

nlohmann::json ArrayField(const nlohmann::json& j, const char* key) {
  const nlohmann::json* f = Field(j, key);
  return f && f->is_array() ? *f : nlohmann::json::array();
}

nlohmann::json RpcResult(const nlohmann::json& id, nlohmann::json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

nlohmann::json RpcError(const nlohmann::json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

nlohmann::json RpcNotification(const std::string& method, nlohmann::json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

nlohmann::json RpcRequest(const nlohmann::json& id, const std::string& method,
                          nlohmann::json params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

}  // namespace hone::mcp
