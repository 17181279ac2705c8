// The hand-off of a candidate to a warm sandbox: a sandbox started before
// its candidate was known (process/warm_pool.h) receives, in one message on a
// Unix socket, the rest of its command line and the descriptors that Spawn
// would have let it inherit (the candidate library, the CPU arena).
//
// Both sides use these two functions, so the message format lives here only.
// Failures are values: false with *error set. Thread-compatible.
#pragma once

#include <string>
#include <vector>

namespace hone::handoff {

// The most bytes of arguments one hand-off carries (read dirs are paths).
inline constexpr size_t kMaxArgBytes = 64 << 10;
inline constexpr int kMaxFds = 4;

// Sends `args` (NUL-separated) and `fds` (SCM_RIGHTS; the sender keeps its
// own copies) on `socket`, a SOCK_SEQPACKET end.
bool Send(int socket, const std::vector<std::string>& args, const std::vector<int>& fds,
          std::string* error);

// Receives what Send sent. Blocks until a message arrives or the peer closes.
// The descriptors arrive close-on-exec; the caller owns them.
bool Receive(int socket, std::vector<std::string>* args, std::vector<int>* fds, std::string* error);

}  // namespace hone::handoff
