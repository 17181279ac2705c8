// The tools that evaluate a candidate (eval, and profile: eval with the
// profiler's counters and the judge's advice, as `hone eval --metrics`), and
// the evaluation options they share with bench. Each evaluation lands in the
// session's run (mcp/agent_run.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mcp/mcp_tools.h"

namespace hone::mcp {

// The evaluation options every evaluating tool takes, as schema properties
// (the backend one of `backends`) and as hone's flags.
nlohmann::json EvalOptionProperties(const ToolBackends& backends);
std::vector<std::string> EvalOptionFlags(const nlohmann::json& args);
// The device whose turn a call that times work waits for (mcp/device_queue.h):
// the host backend's one, or `backend` with the GPU args["device"] names
// (default 0).
std::string DeviceTurn(const std::string& backend, const nlohmann::json& args);
// The structured content an evaluating tool returns.
nlohmann::json VerdictOutputSchema();

ToolResult RunEvalTool(ToolEnv& env, const ToolCall& call);
ToolResult RunProfileTool(ToolEnv& env, const ToolCall& call);

}  // namespace hone::mcp
