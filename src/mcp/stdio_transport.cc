#include "mcp/stdio_transport.h"

#include <memory>
#include <mutex>
#include <string>

#include "core/json_text.h"

namespace hone::mcp {

void ServeStdio(McpSession& session, std::istream& in, std::FILE* out) {
  auto write_mu = std::make_shared<std::mutex>();
  ReplyChannel channel;
  channel.send = [write_mu, out](const nlohmann::json& message) {
    std::string line = JsonText(message) + "\n";
    std::lock_guard<std::mutex> lock(*write_mu);
    std::fwrite(line.data(), 1, line.size(), out);
    std::fflush(out);
  };
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    session.HandleText(line, channel);
  }
  session.CancelAll();
  session.WaitIdle();
}

}  // namespace hone::mcp
