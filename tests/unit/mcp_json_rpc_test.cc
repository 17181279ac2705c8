// JSON-RPC framing as the MCP server reads and writes it (src/mcp/json_rpc.h).
#include <gtest/gtest.h>

#include "mcp/json_rpc.h"

namespace hone::mcp {
namespace {

TEST(McpJsonRpcTest, SortsRequestsNotificationsAndResponses) {
  RpcParsed request = ParseRpc(R"({"jsonrpc":"2.0","id":7,"method":"tools/list"})");
  ASSERT_TRUE(request.ok);
  EXPECT_EQ(request.message.kind, RpcMessage::Kind::kRequest);
  EXPECT_EQ(request.message.id, 7);
  EXPECT_TRUE(request.message.params.is_object()) << "absent params read as {}";

  RpcParsed note = ParseRpc(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}})");
  ASSERT_TRUE(note.ok);
  EXPECT_EQ(note.message.kind, RpcMessage::Kind::kNotification);
  EXPECT_EQ(note.message.params["requestId"], "a");

  RpcParsed response = ParseRpc(R"({"jsonrpc":"2.0","id":"x","result":{}})");
  ASSERT_TRUE(response.ok);
  EXPECT_EQ(response.message.kind, RpcMessage::Kind::kResponse);
}

TEST(McpJsonRpcTest, AnswersBadMessagesWithTheRightError) {
  RpcParsed not_json = ParseRpc("{not json");
  ASSERT_FALSE(not_json.ok);
  EXPECT_EQ(not_json.error_reply["error"]["code"], kParseError);
  EXPECT_TRUE(not_json.error_reply["id"].is_null());

  RpcParsed batch = ParseRpc(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  ASSERT_FALSE(batch.ok);
  EXPECT_EQ(batch.error_reply["error"]["code"], kInvalidRequest);

  RpcParsed version = ParseRpc(R"({"jsonrpc":"1.0","id":3,"method":"ping"})");
  ASSERT_FALSE(version.ok);
  EXPECT_EQ(version.error_reply["id"], 3) << "the id is echoed when it can be read";

  RpcParsed params = ParseRpc(R"({"jsonrpc":"2.0","id":4,"method":"ping","params":[1]})");
  ASSERT_FALSE(params.ok);
  EXPECT_EQ(params.error_reply["error"]["code"], kInvalidParams);

  RpcParsed id = ParseRpc(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})");
  ASSERT_FALSE(id.ok);
  EXPECT_EQ(id.error_reply["error"]["code"], kInvalidRequest);
}

TEST(McpJsonRpcTest, FieldsOfAnotherTypeAreRefusedNotThrown) {
  RpcParsed number = ParseRpc(R"({"jsonrpc":2,"id":1,"method":"ping"})");
  ASSERT_FALSE(number.ok);
  EXPECT_EQ(number.error_reply["error"]["code"], kInvalidRequest);
  EXPECT_EQ(number.error_reply["id"], 1);

  EXPECT_EQ(StringField(nlohmann::json::parse(R"({"a":3})"), "a"), "");
  EXPECT_EQ(StringField(nlohmann::json::parse(R"("x")"), "a"), "") << "not an object";
  EXPECT_EQ(StringField(nlohmann::json::parse(R"({"a":"v"})"), "a"), "v");
  EXPECT_EQ(ObjectField(nlohmann::json::parse(R"({"a":"x"})"), "a"), nlohmann::json::object());
  EXPECT_EQ(ObjectField(nlohmann::json(), "a"), nlohmann::json::object()) << "null";
  EXPECT_EQ(ArrayField(nlohmann::json::parse(R"({"a":{}})"), "a"), nlohmann::json::array());
  EXPECT_EQ(ArrayField(nlohmann::json::parse(R"({"a":[1]})"), "a").size(), 1u);
}

TEST(McpJsonRpcTest, BuildsTheMessagesAServerSends) {
  EXPECT_EQ(RpcResult(1, {{"a", 1}}),
            nlohmann::json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"a":1}})"));
  EXPECT_EQ(RpcError("q", kMethodNotFound, "no")["error"],
            nlohmann::json::parse(R"({"code":-32601,"message":"no"})"));
  nlohmann::json n = RpcNotification("notifications/progress", {{"progress", 1}});
  EXPECT_FALSE(n.contains("id"));
  EXPECT_EQ(n["method"], "notifications/progress");
}

}  // namespace
}  // namespace hone::mcp
