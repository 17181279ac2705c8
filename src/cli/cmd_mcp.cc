// hone mcp: hone as a Model Context Protocol server, for coding agents
// (docs/AGENTS.md). Over stdio by default (the agent starts it); with
// --http HOST:PORT over Streamable HTTP for an agent on another machine.
// Its tools run hone's own subcommands for the work (mcp/tool_env.h), so an
// agent gets the verdicts the CLI gives, and its evaluations land in the
// run store. Exit 0 when the client ends the session (stdio) or on SIGTERM
// or SIGINT (HTTP); 2 for bad usage.
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/stop_signals.h"
#include "cli/store_flags.h"
#include "core/fs.h"
#include "core/temp_dir.h"
#include "mcp/http_transport.h"
#include "mcp/mcp_server.h"
#include "mcp/stdio_transport.h"
#include "serve/http_listener.h"
#include "session/eval_context.h"

namespace hone::cli {
namespace {

struct McpArgs {
  std::vector<std::string> roots;
  std::string http;  // HOST:PORT; empty: stdio
  std::string token_file;
  std::string store;
  bool quiet = false;
};

// "HOST:PORT", "[::1]:PORT" or ":PORT" (loopback).
Result<mcp::HttpOptions> ParseListen(const std::string& text) {
  mcp::HttpOptions o;
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) return Status::Invalid("--http " + text + ": expected HOST:PORT");
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (!host.empty()) o.host = host;
  try {
    o.port = std::stoi(text.substr(colon + 1));
  } catch (...) {
    return Status::Invalid("--http " + text + ": the port is not a number");
  }
  if (o.port < 0 || o.port > 65535) return Status::Invalid("--http " + text + ": no such port");
  return o;
}

// HONE_MCP_TOKEN, else the first line of --token-file: never on the
// command line, where every user's ps shows it.
Result<std::string> ReadToken(const McpArgs& a) {
  if (!a.token_file.empty()) {
    auto token = ReadTokenFile(a.token_file);
    if (!token.ok()) return Status::Invalid("--token-file " + token.status().message());
    return token;
  }
  const char* env = std::getenv("HONE_MCP_TOKEN");
  return std::string(env ? env : "");
}

int RunMcp(const McpArgs& a) {
  auto guard = mcp::PathGuard::Make(a.roots);
  if (!guard.ok()) return ReportError(guard.status());
  std::optional<mcp::HttpOptions> http;
  if (!a.http.empty()) {
    auto parsed = ParseListen(a.http);
    if (!parsed.ok()) return ReportError(parsed.status());
    auto token = ReadToken(a);
    if (!token.ok()) return ReportError(token.status());
    parsed->token = *token;
    http = *parsed;
  }
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return ReportError(Status::Internal("cannot find hone's own program: " + ec.message()));
  auto work = MakeTempDir(std::filesystem::temp_directory_path(), "hone-mcp-");
  if (!work.ok()) return ReportError(work.status());
  TempDirOwner work_owner(*work);
  // A client that goes away mid-write must not end the server.
  signal(SIGPIPE, SIG_IGN);
  mcp::ProcessRunner runner;
  mcp::DeviceQueue queue;
  mcp::ToolEnv env(self, *guard, runner, queue, *work, AbsolutePath(a.store), BuiltInLanguages(),
                   mcp::ToolBackendsOf(BuiltInBackends()));
  // Without --root, a stdio client's MCP roots are the folders it may name.
  const bool ask_client_roots = a.roots.empty() && !http;
  const bool quiet = a.quiet;
  auto make_session = [&env, ask_client_roots, quiet] {
    auto session = std::make_unique<mcp::McpSession>(env, mcp::HoneTools(env.backends()),
                                                     HONE_VERSION, ask_client_roots);
    // A line per call on stderr, for the person who started the server.
    if (!quiet)
      session->SetCallNotes(
          [](const std::string& line) { std::fprintf(stderr, "hone mcp: %s\n", line.c_str()); });
    return session;
  };
  std::string roots;
  for (const auto& r : guard->roots()) roots += (roots.empty() ? "" : ", ") + r.string();
  if (!http) {
    if (!a.quiet) std::fprintf(stderr, "hone mcp: serving on stdio; roots: %s\n", roots.c_str());
    auto session = make_session();
    mcp::ServeStdio(*session, std::cin, stdout);
    return kExitOk;
  }
  BlockStopSignals();
  mcp::HttpTransport transport(*http, make_session);
  if (Status st = transport.Start(); !st.ok()) return ReportError(st);
  // The address on stdout (one line), so a script that started it on port 0
  // learns the port.
  std::printf("%s/mcp\n", HttpUrl(http->host, transport.port()).c_str());
  std::fflush(stdout);
  if (!a.quiet)
    std::fprintf(stderr, "hone mcp: listening on %s:%d%s; roots: %s\n", http->host.c_str(),
                 transport.port(), http->token.empty() ? "" : " (bearer token required)",
                 roots.c_str());
  while (!StopSignalWithin(std::chrono::hours(1))) {
  }
  transport.Stop();
  return kExitOk;
}

}  // namespace

Command RegisterMcp(CLI::App& app) {
  auto args = std::make_shared<McpArgs>();
  CLI::App* sub = app.add_subcommand(
      "mcp", "Serve hone's tools to coding agents (Model Context Protocol, stdio or HTTP)");
  sub->add_option("--root", args->roots,
                  "A folder whose files the client may name (repeatable; default: the client's "
                  "MCP roots over stdio, else the working folder)");
  sub->add_option("--http", args->http,
                  "Serve Streamable HTTP on HOST:PORT (port 0: any free one) instead of stdio; "
                  "off loopback a token is required");
  sub->add_option("--token-file", args->token_file,
                  "A file whose first line is the bearer token HTTP clients must send (default "
                  "$HONE_MCP_TOKEN)");
  AddStoreFlag(sub, args->store);
  sub->add_flag("-q,--quiet", args->quiet, "Say nothing on standard error");
  return [args] { return RunMcp(*args); };
}

}  // namespace hone::cli
