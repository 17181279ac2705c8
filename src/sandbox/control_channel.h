// The sandbox's end of its control pipes to the worker (wire/protocol.h):
// requests read whole, replies written whole, and the exit of a sandbox that
// cannot set itself up.
//
// Threads: whichever thread serves the worker (one at a time). Failure: a
// reply that cannot be written ends the process (the worker is gone); Die
// ends it with wire::kSetupFailedExitCode after one line on stderr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "wire/protocol.h"

namespace hone::sandbox {

// Ends the sandbox as a failed set-up: "hone-sandbox: WHAT" on stderr.
[[noreturn]] void Die(const char* what);

// Reads exactly `n` bytes; false at end of file or on an error.
bool ReadAll(int fd, void* buf, size_t n);

// A reply of `kind` with `message` (truncated to the reply's field).
wire::Reply MakeReply(wire::ReplyKind kind, const std::string& message);

// Writes `r` whole, or ends the process.
void Send(int fd, const wire::Reply& r);

// Sends a kError reply with `message` and `aux`.
void SendError(int fd, const std::string& message, uint64_t aux = 0);

}  // namespace hone::sandbox
