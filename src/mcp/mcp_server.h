// One MCP session, whatever carries it (stdio, or Streamable HTTP): the
// handshake (initialize: protocol version and capabilities), tools/list,
// tools/call, ping, logging/setLevel, and the client's
// notifications/cancelled. A tools/call runs on a thread of its own, so the
// session keeps answering (a ping, a cancellation, another call) while an
// evaluation runs; its progress notifications (when the client gave a
// progressToken), log messages and result go to the reply channel of the
// request that started it.
//
// A cancelled call stops its work (mcp/tool_process.h) and gets no
// response, as the specification asks. A bad message gets a JSON-RPC
// error; nothing a client sends ends the session.
//
// Ownership: the session borrows the ToolEnv (which outlives it) and owns
// its run in the store (begun at the first evaluation). Thread-safe.
// Destroying it cancels the calls in flight and waits for them.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/agent_run.h"
#include "mcp/job_board.h"
#include "mcp/json_rpc.h"
#include "mcp/mcp_tools.h"

namespace hone::mcp {

// The most tools/call requests one session runs at once; one more is
// answered a JSON-RPC error.
inline constexpr int kMaxCallsInFlight = 64;

// The protocol revisions this server speaks, newest first.
const std::vector<std::string>& SupportedProtocolVersions();

// Where a request's messages go: its response and the notifications sent
// while it runs. `finished` is called once nothing more will be sent for
// it (after the response, or when it was cancelled). Both may be called
// from any thread, never at once for one request.
struct ReplyChannel {
  std::function<void(const nlohmann::json& message)> send;
  std::function<void()> finished = [] {};
};

class McpSession {
 public:
  // `ask_client_roots`: the server was given no --root, so the folders a
  // client offers as MCP roots (roots/list, asked when the client says it
  // is initialized and again when it says they changed) are the ones its
  // calls may name files under. Only where the transport carries requests
  // from server to client outside a call (stdio).
  McpSession(ToolEnv& env, std::vector<Tool> tools, std::string version,
             bool ask_client_roots = false);
  ~McpSession();
  McpSession(const McpSession&) = delete;
  McpSession& operator=(const McpSession&) = delete;

  // A message as it came off the wire (stdio's line).
  void HandleText(std::string_view text, ReplyChannel reply);
  void Handle(const RpcMessage& message, ReplyChannel reply);

  // Where a line per finished call goes (hone mcp's stderr); unset: nowhere.
  void SetCallNotes(std::function<void(const std::string& line)> notes);

  // Stops every call in flight and waits until none is left.
  void CancelAll();
  void WaitIdle();
  int in_flight() const;

 private:
  nlohmann::json Initialize(const nlohmann::json& params);
  nlohmann::json ListTools() const;
  // Starts the call; false (with the error sent) when it cannot start.
  void StartCall(const RpcMessage& message, ReplyChannel reply);
  void Route(const RpcMessage& message, ReplyChannel reply);
  // The call's thread: its answer, or a JSON-RPC error when reading the
  // client's JSON threw; never throws.
  void RunCall(const Tool& tool, nlohmann::json id, nlohmann::json params,
               std::shared_ptr<CancelFlag> cancel, ReplyChannel reply);
  // The call's response; nullopt when it was cancelled (none is sent).
  std::optional<nlohmann::json> Answer(const Tool& tool, const nlohmann::json& id,
                                       const nlohmann::json& params,
                                       const std::shared_ptr<CancelFlag>& cancel,
                                       ReplyChannel& reply);
  // The call's result; nullopt when it was cancelled (no response).
  std::optional<ToolResult> Dispatch(const Tool& tool, const ToolCall& call);
  std::optional<ToolResult> AwaitJobAgain(const Tool& tool, const ToolCall& call);
  std::optional<ToolResult> Await(const std::shared_ptr<Job>& job, const ToolCall& call,
                                  bool cancel_with_call);
  void Cancelled(const nlohmann::json& params);
  void AskRoots(const ReplyChannel& reply);
  void TakeRoots(const RpcMessage& response);
  bool Logs(const std::string& level) const;
  void Note(const std::string& line);

  ToolEnv& env_;
  const std::vector<Tool> tools_;
  const std::string version_;
  mutable std::mutex mu_;
  std::condition_variable idle_;
  std::map<std::string, std::shared_ptr<CancelFlag>> calls_;  // by the request id's JSON
  int running_ = 0;
  std::string log_level_ = "warning";
  std::unique_ptr<AgentRun> run_;
  const bool ask_client_roots_;
  bool client_has_roots_ = false;
  int roots_asked_ = 0;
  std::string pending_roots_;  // the id of the roots/list request awaiting its answer
  std::shared_ptr<const PathGuard> client_guard_;  // from the client's roots; null: the server's
  std::function<void(const std::string&)> notes_;
  JobBoard jobs_;  // last: its jobs use the members above, and end first
};

}  // namespace hone::mcp
