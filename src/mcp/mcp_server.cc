#include "mcp/mcp_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <system_error>
#include <thread>

#include "core/json_text.h"
#include "mcp/tool_arguments.h"

namespace hone::mcp {
namespace {

// RFC 5424's severities, as MCP's logging names them, least severe first.
const std::vector<std::string>& LogLevels() {
  static const std::vector<std::string> levels = {"debug", "info",     "notice", "warning",
                                                  "error", "critical", "alert",  "emergency"};
  return levels;
}

int Severity(const std::string& level) {
  const auto& levels = LogLevels();
  return static_cast<int>(std::find(levels.begin(), levels.end(), level) - levels.begin());
}

constexpr const char* kInstructions =
    "hone verifies and times GPU/CPU kernels. Start with task_show on the problem to see what "
    "the kernel receives (the hone_forward contract, shapes, dtypes, the reference), write a "
    "candidate, check it with lint, then eval it (a path, or source text with its language). "
    "Read the status and reason: fix compile errors and failed checks first, then use profile "
    "on a passing kernel to see what limits it. Evaluations are slow (seconds to minutes): "
    "send a progressToken and reset your timeout on progress.";

std::string ClientName(const nlohmann::json& client_info) {
  std::string name = StringField(client_info, "name");
  return name.empty() ? "client" : name;
}

}  // namespace

const std::vector<std::string>& SupportedProtocolVersions() {
  static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18", "2025-03-26"};
  return versions;
}

McpSession::McpSession(ToolEnv& env, std::vector<Tool> tools, std::string version,
                       bool ask_client_roots)
    : env_(env),
      tools_(std::move(tools)),
      version_(std::move(version)),
      ask_client_roots_(ask_client_roots) {}

McpSession::~McpSession() {
  CancelAll();
  WaitIdle();
}

void McpSession::HandleText(std::string_view text, ReplyChannel reply) {
  RpcParsed parsed = ParseRpc(text);
  if (!parsed.ok) {
    reply.send(parsed.error_reply);
    reply.finished();
    return;
  }
  Handle(parsed.message, std::move(reply));
}

void McpSession::Handle(const RpcMessage& m, ReplyChannel reply) {
  try {
    Route(m, reply);
  } catch (const nlohmann::json::exception& e) {
    // A field of an unexpected type that slipped past the typed accessors:
    // the sender is told, the session goes on.
    if (m.kind == RpcMessage::Kind::kRequest)
      reply.send(RpcError(m.id, kInvalidParams, m.method + ": " + e.what()));
    reply.finished();
  }
}

void McpSession::Route(const RpcMessage& m, ReplyChannel reply) {
  using Kind = RpcMessage::Kind;
  if (m.kind != Kind::kRequest) {
    if (m.kind == Kind::kResponse) TakeRoots(m);
    if (m.method == "notifications/cancelled") Cancelled(m.params);
    if (m.method == "notifications/initialized" || m.method == "notifications/roots/list_changed")
      AskRoots(reply);
    reply.finished();
    return;
  }
  if (m.method == "tools/call") {
    StartCall(m, std::move(reply));
    return;
  }
  nlohmann::json answer;
  if (m.method == "initialize") {
    answer = RpcResult(m.id, Initialize(m.params));
  } else if (m.method == "ping") {
    answer = RpcResult(m.id, nlohmann::json::object());
  } else if (m.method == "tools/list") {
    answer = RpcResult(m.id, ListTools());
  } else if (m.method == "logging/setLevel") {
    std::string level = StringField(m.params, "level");
    if (Severity(level) >= static_cast<int>(LogLevels().size())) {
      answer = RpcError(m.id, kInvalidParams, "logging/setLevel: unknown level '" + level + "'");
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      log_level_ = level;
      answer = RpcResult(m.id, nlohmann::json::object());
    }
  } else {
    answer = RpcError(m.id, kMethodNotFound, "method not found: " + m.method);
  }
  reply.send(answer);
  reply.finished();
}

nlohmann::json McpSession::Initialize(const nlohmann::json& params) {
  const auto& versions = SupportedProtocolVersions();
  std::string asked = StringField(params, "protocolVersion");
  std::string version =
      std::find(versions.begin(), versions.end(), asked) != versions.end() ? asked : versions[0];
  nlohmann::json client = ObjectField(params, "clientInfo");
  const nlohmann::json capabilities = ObjectField(params, "capabilities");
  {
    std::lock_guard<std::mutex> lock(mu_);
    client_has_roots_ = capabilities.contains("roots");
    if (!run_)
      run_ = std::make_unique<AgentRun>(env_.store(), "mcp " + ClientName(client),
                                        nlohmann::json{{"client", client}});
  }
  return {{"protocolVersion", version},
          {"capabilities",
           {{"tools", {{"listChanged", false}}}, {"logging", nlohmann::json::object()}}},
          {"serverInfo", {{"name", "hone"}, {"title", "hone"}, {"version", version_}}},
          {"instructions", kInstructions}};
}

nlohmann::json McpSession::ListTools() const {
  nlohmann::json list = nlohmann::json::array();
  for (const Tool& t : tools_) list.push_back(ToolListEntry(t));
  return {{"tools", list}};
}

void McpSession::StartCall(const RpcMessage& m, ReplyChannel reply) {
  auto fail = [&](int code, const std::string& why) {
    reply.send(RpcError(m.id, code, why));
    reply.finished();
  };
  if (!m.params.contains("name") || !m.params["name"].is_string())
    return fail(kInvalidParams, "tools/call: params.name must name a tool");
  const Tool* tool = FindTool(tools_, m.params["name"].get<std::string>());
  if (!tool) return fail(kInvalidParams, "unknown tool: " + m.params["name"].get<std::string>());
  auto cancel = std::make_shared<CancelFlag>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_ >= kMaxCallsInFlight)
      return fail(kInternalError, fmt::format("{} calls are in flight already (the most at once): "
                                              "wait for one or cancel one",
                                              running_));
    if (!calls_.emplace(JsonText(m.id), cancel).second)
      return fail(kInvalidRequest, "request id " + JsonText(m.id) + " is already in use");
    ++running_;
  }
  try {
    std::thread([this, tool, id = m.id, params = m.params, cancel, reply]() mutable {
      RunCall(*tool, std::move(id), std::move(params), std::move(cancel), std::move(reply));
    }).detach();
  } catch (const std::system_error& e) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls_.erase(JsonText(m.id));
      --running_;
      idle_.notify_all();
    }
    fail(kInternalError, std::string("tools/call: cannot start the call's thread: ") + e.what());
  }
}

void McpSession::RunCall(const Tool& tool, nlohmann::json id, nlohmann::json params,
                         std::shared_ptr<CancelFlag> cancel, ReplyChannel reply) {
  std::optional<nlohmann::json> answer;
  try {
    answer = Answer(tool, id, params, cancel, reply);
  } catch (const nlohmann::json::exception& e) {
    answer = RpcError(id, kInvalidParams, tool.name + ": " + e.what());
  }
  if (answer) reply.send(*answer);
  reply.finished();
  std::lock_guard<std::mutex> lock(mu_);
  calls_.erase(JsonText(id));
  --running_;
  idle_.notify_all();
}

std::optional<nlohmann::json> McpSession::Answer(const Tool& tool, const nlohmann::json& id,
                                                 const nlohmann::json& params,
                                                 const std::shared_ptr<CancelFlag>& cancel,
                                                 ReplyChannel& reply) {
  ToolCall call;
  call.args = params.value("arguments", nlohmann::json::object());
  call.cancel = cancel.get();
  {
    std::lock_guard<std::mutex> lock(mu_);
    call.run = run_.get();
    call.guard = client_guard_;
  }
  nlohmann::json token = params.contains("_meta") && params["_meta"].is_object()
                             ? params["_meta"].value("progressToken", nlohmann::json())
                             : nlohmann::json();
  int progress = 0;
  if (!token.is_null())
    call.progress = [&](const std::string& line) {
      if (cancel->cancelled()) return;
      reply.send(
          RpcNotification("notifications/progress",
                          {{"progressToken", token}, {"progress", ++progress}, {"message", line}}));
    };
  call.log = [&](const std::string& level, const std::string& text) {
    if (Logs(level))
      reply.send(RpcNotification("notifications/message",
                                 {{"level", level}, {"logger", "hone"}, {"data", text}}));
  };
  auto start = std::chrono::steady_clock::now();
  std::optional<ToolResult> result = Dispatch(tool, call);
  Note(
      tool.name + ": " +
      (result && !cancel->cancelled()
           ? (result->is_error ? "error: " : "") + result->text.substr(0, result->text.find('\n'))
           : std::string("cancelled")) +
      fmt::format(" ({:.1f} s)",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
  if (!result || cancel->cancelled()) return std::nullopt;
  call.log(result->is_error ? "warning" : "info",
           tool.name + ": " + (result->is_error ? "error: " : "") +
               result->text.substr(0, result->text.find('\n')));
  return RpcResult(id, result->ToJson());
}

std::optional<ToolResult> McpSession::Dispatch(const Tool& tool, const ToolCall& call) {
  if (tool.name == kResultToolName) return AwaitJobAgain(tool, call);
  if (!tool.waits) return CallTool(tool, env_, call);
  // A bad argument is said at once, not by a job.
  if (Status st = CheckArguments(tool.input_schema, call.args); !st.ok())
    return ToolResult::Error(tool.name + ": " + st.message());
  ToolCall work = call;
  work.log = [](const std::string&, const std::string&) {};
  auto job = jobs_.Start([this, &tool, work](Job& j) mutable {
    work.cancel = &j.cancel();
    work.progress = [&j](const std::string& line) { j.Progress(line); };
    return CallTool(tool, env_, work);
  });
  if (!job.ok()) return ToolResult::Error(tool.name + ": " + job.status().message());
  return Await(*job, call, /*cancel_with_call=*/true);
}

std::optional<ToolResult> McpSession::AwaitJobAgain(const Tool& tool, const ToolCall& call) {
  if (Status st = CheckArguments(tool.input_schema, call.args); !st.ok())
    return ToolResult::Error(tool.name + ": " + st.message());
  const std::string id = call.args["job"].get<std::string>();
  std::shared_ptr<Job> job = jobs_.Find(id);
  if (!job)
    return ToolResult::Error("result: argument 'job': no job " + id +
                             " in this session (a job's result is returned once)");
  if (call.args.value("cancel", false)) {
    job->cancel().Cancel();
    job->Wait(std::chrono::hours(24), CancelFlag());
    jobs_.Forget(id);
    ToolResult r;
    r.text = "cancelled: job " + id + " stopped\n";
    r.structured = {{"status", "cancelled"}, {"reason", "job " + id + " stopped"}, {"job", id}};
    return r;
  }
  // Cancelling this call stops the waiting, not the job.
  return Await(job, call, /*cancel_with_call=*/false);
}

std::optional<ToolResult> McpSession::Await(const std::shared_ptr<Job>& job, const ToolCall& call,
                                            bool cancel_with_call) {
  // Clamped before the cast: a double beyond int64's range is undefined.
  const double seconds =
      std::clamp(call.args.value("wait_seconds", kDefaultWaitSeconds), 0.0, kMaxWaitSeconds);
  job->SetProgress(call.progress);
  auto result =
      job->Wait(std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)), *call.cancel);
  job->SetProgress(nullptr);  // the call's channel ends with it
  if (result) {
    jobs_.Forget(job->id());
    return result;
  }
  if (!call.cancel->cancelled()) return StillRunning(*job);
  if (cancel_with_call) {
    // Its processes are gone before the call is: nothing is left running.
    job->cancel().Cancel();
    job->Wait(std::chrono::hours(24), CancelFlag());
    jobs_.Forget(job->id());
  }
  return std::nullopt;
}

void McpSession::Cancelled(const nlohmann::json& params) {
  if (!params.contains("requestId")) return;
  std::lock_guard<std::mutex> lock(mu_);
  // A cancellation that names no call in flight (it finished meanwhile) is
  // ignored, as the specification says.
  if (auto it = calls_.find(JsonText(params["requestId"])); it != calls_.end())
    it->second->Cancel();
}

void McpSession::AskRoots(const ReplyChannel& reply) {
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ask_client_roots_ || !client_has_roots_) return;
    pending_roots_ = id = "hone-roots-" + std::to_string(++roots_asked_);
  }
  reply.send(RpcRequest(id, "roots/list", nlohmann::json::object()));
}

void McpSession::TakeRoots(const RpcMessage& response) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!response.id.is_string() || response.id.get<std::string>() != pending_roots_) return;
    pending_roots_.clear();
  }
  // Roots that are not local folders that exist are left out; none left:
  // the server's own stay.
  std::vector<std::string> folders;
  for (const auto& root : ArrayField(response.result, "roots"))
    if (auto path = PathOfFileUri(StringField(root, "uri")))
      if (std::error_code ec; std::filesystem::is_directory(*path, ec)) folders.push_back(*path);
  if (folders.empty()) return;
  auto guard = PathGuard::Make(folders);
  if (!guard.ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  client_guard_ = std::make_shared<const PathGuard>(std::move(*guard));
}

void McpSession::SetCallNotes(std::function<void(const std::string& line)> notes) {
  std::lock_guard<std::mutex> lock(mu_);
  notes_ = std::move(notes);
}

void McpSession::Note(const std::string& line) {
  std::function<void(const std::string&)> notes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    notes = notes_;
  }
  if (notes) notes(line);
}

bool McpSession::Logs(const std::string& level) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Severity(level) >= Severity(log_level_);
}

void McpSession::CancelAll() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, flag] : calls_) flag->Cancel();
  }
  jobs_.CancelAll();
}

void McpSession::WaitIdle() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    idle_.wait(lock, [this] { return running_ == 0; });
  }
  jobs_.WaitAll();
}

int McpSession::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

}  // namespace hone::mcp
