// What starting one hone-sandbox process takes, apart from the handle that
// drives it (process/sandbox_process.h): the descriptor numbers it inherits,
// its command line, environment, address-space allowance and scratch
// folder, and the forked child's part up to exec (descriptors moved into
// place, resource limits).
//
// Everything but ExecSandbox allocates and runs in the worker before fork;
// ExecSandbox runs in the forked child and makes only async-signal-safe
// calls. Failure: MakeScratch returns a Status; a child that cannot exec
// exits with wire::kSetupFailedExitCode.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "process/arena.h"
#include "process/sandbox_config.h"

namespace hone {

// The descriptors a sandbox finds open (docs/ARCHITECTURE.md, "What crosses
// between worker and sandbox"): requests, replies, the arena, and the
// candidate library or a warm sandbox's hand-off socket.
constexpr int kCtlIn = 3, kCtlOut = 4, kArenaFd = 5, kLibraryFd = 6;

// A pipe whose ends are closed on exec.
struct Pipe {
  int r = -1, w = -1;
  bool Open();
  void Close();
};

// The command line that names the candidate and how to confine it: all of
// hone-sandbox's arguments but the descriptors and the scratch folder. A
// warm sandbox receives these with its hand-off.
std::vector<std::string> CandidateArgs(const SandboxConfig& c, const Arena& arena);

// Address space: the candidate's allowance plus what hone itself maps there.
size_t AddressLimit(const SandboxConfig& c, const Arena* arena);

// The sandbox's whole environment: hone's few variables, a compat
// candidate's own, and, under a profiler, the worker's.
std::vector<std::string> SandboxEnvironment(const SandboxConfig& c,
                                            const std::filesystem::path& scratch);

// A sandbox's private folder, its user's (nobody's, as root).
Result<std::filesystem::path> MakeScratch(const SandboxConfig& c);

// Runs in the forked child: only async-signal-safe calls until exec.
// `library` is the candidate, or for a warm sandbox the hand-off socket
// (the same descriptor number: the library arrives through it later). A warm
// sandbox gets its memory limit with the hand-off, when it is known.
[[noreturn]] void ExecSandbox(int req_r, int rep_w, int log_w, int arena, int library, int devnull,
                              const SandboxConfig& c, bool warm, bool idle, size_t address_limit,
                              char** argv, char** envp);

}  // namespace hone
