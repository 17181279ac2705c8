#include "mcp/tool_backends.h"

namespace hone::mcp {

ToolBackends ToolBackendsOf(const BackendRegistry& registry) {
  ToolBackends b;
  for (const BackendKind& k : registry.kinds()) b.names.push_back(k.name);
  const BackendKind* numbered = NumberedKind(registry);
  b.timing = numbered ? numbered->name : kHostBackend;
  return b;
}

}  // namespace hone::mcp
