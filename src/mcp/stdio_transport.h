// MCP over stdio: the client starts `hone mcp` and writes one JSON-RPC
// message per line on its standard input; every message the server sends
// is one line on standard output (nothing else is ever written there), and
// hone's own diagnostics go to standard error. End of input ends the
// session: calls in flight are cancelled and waited for, then it returns.
//
// Blocks the calling thread. Writes are serialised (calls answer from
// their own threads).
#pragma once

#include <cstdio>
#include <istream>

#include "mcp/mcp_server.h"

namespace hone::mcp {

void ServeStdio(McpSession& session, std::istream& in, std::FILE* out);

}  // namespace hone::mcp
