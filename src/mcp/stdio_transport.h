// MCP over stdio: the client starts `hone mcp` and writes one JSON-RPC
// message per line on its standard input; every message the server sends
// is one line on standard output (nothing else is ever written there), and
// hone's own diagnostics go to standard error. End of input ends the
// session: calls in flight are cancelled and waited for, then it returns.
//
// Blocks the calling thread. Writes are serialised (calls answer from
// their own threads).
#pragma once

#include <cstddef>
#include <cstdio>
#include <istream>

#include "mcp/mcp_server.h"

namespace hone::mcp {

// The longest line read as a message, as HTTP caps a body; a longer one is
// skipped to its end and answered a parse error (id null).
inline constexpr size_t kMaxStdioLineBytes = size_t{16} << 20;

void ServeStdio(McpSession& session, std::istream& in, std::FILE* out,
                size_t max_line_bytes = kMaxStdioLineBytes);

}  // namespace hone::mcp
