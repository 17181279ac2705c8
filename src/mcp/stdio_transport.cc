#include "mcp/stdio_transport.h"

#include <memory>
#include <mutex>
#include <string>

#include "core/json_text.h"

namespace hone::mcp {

namespace {

// The next line of `in` without its "\n", at most `max` bytes of it kept
// (`too_long` says when more were skipped); false at the end of input.
bool ReadLine(std::istream& in, size_t max, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf* buf = in.rdbuf();
  for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
    if (c == '\n') return true;
    if (line.size() < max)
      line.push_back(static_cast<char>(c));
    else
      too_long = true;
  }
  return !line.empty() || too_long;
}

}  // namespace

void ServeStdio(McpSession& session, std::istream& in, std::FILE* out, size_t max_line_bytes) {
  auto write_mu = std::make_shared<std::mutex>();
  ReplyChannel channel;
  channel.send = [write_mu, out](const nlohmann::json& message) {
    std::string line = JsonText(message) + "\n";
    std::lock_guard<std::mutex> lock(*write_mu);
    std::fwrite(line.data(), 1, line.size(), out);
    std::fflush(out);
  };
  std::string line;
  bool too_long = false;
  while (ReadLine(in, max_line_bytes, line, too_long)) {
    if (too_long) {
      channel.send(RpcError(
          nullptr, kParseError,
          "a message longer than " + std::to_string(max_line_bytes) + " bytes is refused"));
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    session.HandleText(line, channel);
  }
  session.CancelAll();
  session.WaitIdle();
}

}  // namespace hone::mcp
