// The backends the MCP tools offer, as values the entry point takes from its
// backend registry (run/backend_registry.h) once: the names a tool's
// "backend" argument may take, and the backend whose device a call that
// times work without naming one waits for the turn of (mcp/device_queue.h).
// The tools run hone as a child, so they need the names, never a backend.
// A value; any thread.
#pragma once

#include <string>
#include <vector>

#include "run/backend_registry.h"

namespace hone::mcp {

struct ToolBackends {
  std::vector<std::string> names;  // in registration order: "cpu", "cuda"
  // The first backend with numbered devices (the GPUs'), else the host's:
  // `hone prepare` without --backend times on the GPU when there is one.
  std::string timing;
};

ToolBackends ToolBackendsOf(const BackendRegistry& registry);

}  // namespace hone::mcp
