// How `hone serve` and `hone mcp --http` wait for SIGTERM or SIGINT: blocked
// in every thread (threads started afterwards inherit the mask; children
// have it undone) and taken by the main thread alone, which then stops the
// server in order.
#pragma once

#include <chrono>

namespace hone::cli {

// Blocks SIGTERM and SIGINT in this thread: call before any thread starts.
void BlockStopSignals();

// Waits up to `wait` for SIGTERM or SIGINT (blocked first); true when one
// came.
bool StopSignalWithin(std::chrono::milliseconds wait);

}  // namespace hone::cli
