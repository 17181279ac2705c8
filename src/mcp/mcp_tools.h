// hone's tools as an MCP server lists and calls them: each one a name, a
// description a model reads to choose it, an input schema its arguments
// are checked against before it runs, an output schema its structured
// content follows, and a handler. A handler runs hone's own subcommand for
// the work (mcp/tool_env.h), so a tool gives the verdict the CLI gives, and
// returns the full result as structured content and a compact text for the
// model's context.
//
// A bad argument or a failed step is an error result (isError) whose text
// names what was wrong; the server keeps serving. Handlers are called on
// the call's own thread and share only the ToolEnv.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/tool_env.h"

namespace hone::mcp {

struct ToolResult {
  std::string text;
  nlohmann::json structured;  // null: none (an error result has none)
  bool is_error = false;
  static ToolResult Error(const std::string& message);
  // MCP's CallToolResult: content, structuredContent, isError.
  nlohmann::json ToJson() const;
};

struct Tool {
  std::string name, title, description;
  nlohmann::json input_schema, output_schema;
  bool read_only = false;  // MCP's readOnlyHint: it changes nothing the client owns
  // Long work run as a job the call waits for at most wait_seconds
  // (mcp/job_board.h); the session runs it, and answers `result` itself.
  bool waits = false;
  std::function<ToolResult(ToolEnv& env, const ToolCall& call)> run;
};

// How long a waiting tool's call waits for its job unless it says: under
// the 60 s a client's request times out after by default.
inline constexpr double kDefaultWaitSeconds = 50;
// The longest a call waits; a longer wait_seconds is read as this.
inline constexpr double kMaxWaitSeconds = 300;
inline constexpr const char* kResultToolName = "result";

// eval, lint, task_show, profile, bench, prepare, report, lessons, result;
// their "backend" arguments one of `backends` (the ToolEnv's).
std::vector<Tool> HoneTools(const ToolBackends& backends);
// A tool as tools/list describes it.
nlohmann::json ToolListEntry(const Tool& tool);
const Tool* FindTool(const std::vector<Tool>& tools, std::string_view name);
// Checks the call's arguments against the tool's input schema, then runs
// it; a bad argument is an error result naming it.
ToolResult CallTool(const Tool& tool, ToolEnv& env, const ToolCall& call);

}  // namespace hone::mcp
