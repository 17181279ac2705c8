#include "sandbox/control_channel.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace hone::sandbox {

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "hone-sandbox: %s\n", what);
  std::_Exit(wire::kSetupFailedExitCode);
}

bool ReadAll(int fd, void* buf, size_t n) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t k = read(fd, p, n);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

wire::Reply MakeReply(wire::ReplyKind kind, const std::string& message) {
  wire::Reply r{};
  r.magic = wire::kMagic;
  r.kind = kind;
  std::snprintf(r.message, sizeof r.message, "%s", message.c_str());
  return r;
}

void Send(int fd, const wire::Reply& r) {
  const char* p = reinterpret_cast<const char*>(&r);
  size_t n = sizeof r;
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k <= 0) std::_Exit(wire::kSetupFailedExitCode);
    p += k;
    n -= static_cast<size_t>(k);
  }
}

void SendError(int fd, const std::string& message, uint64_t aux) {
  wire::Reply r = MakeReply(wire::ReplyKind::kError, message);
  r.aux = aux;
  Send(fd, r);
}

}  // namespace hone::sandbox
