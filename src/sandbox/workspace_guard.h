// Canaries around a candidate's workspace (hone_workspace_bytes), for the
// sandbox executables only (sandbox/call_server.cc,
// sandbox/cuda/cuda_sandbox.cc).
//
// The workspace is memory of the sandbox's own, allocated there, so the
// trusted worker cannot watch it the way it watches the arena
// (process/stray_writes.h). The sandbox lays kWorkspaceGuardBytes of canary
// before the workspace and at least as many after its last requested byte,
// and compares them after every call. They catch a kernel that runs off the
// end of its scratch memory, a bug; a hostile candidate owns this memory
// and its process anyway, and what it could reach from here (the arena) is
// watched by the worker. Header-only; no state.
#pragma once

#include <cstddef>
#include <string>

namespace hone::sandbox {

inline constexpr size_t kWorkspaceGuardBytes = size_t{64} << 10;
inline constexpr unsigned char kWorkspaceCanary = 0xA7;

inline size_t WorkspaceRounded(size_t bytes) { return (bytes + 255) / 256 * 256; }
// The whole allocation: head guard, workspace rounded up, tail guard.
inline size_t WorkspaceAllocationBytes(size_t bytes) {
  return 2 * kWorkspaceGuardBytes + WorkspaceRounded(bytes);
}
// The tail guard starts at the workspace's last requested byte + 1.
inline size_t WorkspaceTailGuardBytes(size_t bytes) {
  return kWorkspaceGuardBytes + WorkspaceRounded(bytes) - bytes;
}

// "" when both guards hold their canary; otherwise which byte changed,
// nearest the workspace: "wrote outside its workspace of 4096 bytes: byte 0
// past its end changed during the call". `head` is the kWorkspaceGuardBytes
// before the workspace, `tail` the tail guard.
inline std::string DescribeWorkspaceGuardHit(const unsigned char* head, const unsigned char* tail,
                                             size_t workspace_bytes) {
  std::string what;
  for (size_t i = 0; i < WorkspaceTailGuardBytes(workspace_bytes) && what.empty(); ++i)
    if (tail[i] != kWorkspaceCanary) what = "byte " + std::to_string(i) + " past its end";
  for (size_t i = kWorkspaceGuardBytes; i > 0 && what.empty(); --i)
    if (head[i - 1] != kWorkspaceCanary)
      what = "byte " + std::to_string(kWorkspaceGuardBytes - i + 1) + " before its start";
  if (what.empty()) return "";
  return "wrote outside its workspace of " + std::to_string(workspace_bytes) + " bytes: " + what +
         " changed during the call";
}

}  // namespace hone::sandbox
