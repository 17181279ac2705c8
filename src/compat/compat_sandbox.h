// The sandbox of a compat shim (compat/compat_candidate.h), whether it runs a
// candidate's ModelNew or a PyTorch task's own Model as a baseline: what it
// adds to the sandbox every candidate gets. Python, torch and the compilers
// load_inline runs need to read their folders, their environment, more
// memory and no address-space limit. As root the sandbox runs as 'nobody',
// who cannot pass through root's private home where the cache usually is:
// its scratch folders and the prebuilt extensions it imports then live
// under a root-owned folder made once per process.
//
// Failures to make those folders or copies are Status::Io. Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "compat/compat_candidate.h"
#include "core/status.h"
#include "process/sandbox_process.h"

namespace hone {

// How long a compat sandbox may take to load: Python, torch, load_inline.
inline constexpr int64_t kCompatStartMillis = 600000;
// A compat sandbox's data-segment limit at the least (its build included).
inline constexpr size_t kCompatMemoryBytes = size_t{16} << 30;

// Python, torch and the compilers, added to `config` (the prebuilt
// extensions' folders are the caller's to add).
Status AddCompat(SandboxConfig& config, const CompatRuntime& runtime);
// AddCompat, and read access to the extensions `shim` imports.
Status AddCompatShim(SandboxConfig& config, const CompatRuntime& runtime,
                     const CompatShimOptions& shim);

// Where compat sandboxes get their scratch folders when hone runs as root: a
// fresh root-owned folder per process (unpredictable, so no one can plant
// it), which 'nobody' may pass through but not list. It is made in TMPDIR
// when 'nobody' can pass through every folder on the way there, else in the
// first of /tmp, /var/tmp and /dev/shm that it can (a private TMPDIR, mode
// 0700, left the sandbox unable to open its own prebuilt extension).
Result<std::filesystem::path> CompatScratchRoot();

// The first of `candidates` that others may pass through, every folder from
// / down to it (search permission for 'others'); the first one when none.
std::filesystem::path FirstPassableFolder(const std::vector<std::filesystem::path>& candidates);

// A prebuilt library where the sandbox may read it: itself, or as root a
// world-readable copy under CompatScratchRoot().
Result<std::filesystem::path> SandboxReadable(const std::filesystem::path& library);

// For a problem whose file reads files beside it (Task::data_beside, a
// format's stored inputs drawn by the warm-up call): its folder readable in
// the sandbox (read_dirs), as root through a world-readable copy of the
// folder's files, which becomes the problem_path. Other tasks: nothing.
Status AddProblemFolder(const Task& task, CompatShimOptions& options);

// The candidate's own file readable (read-only) in its sandbox at the path
// its module reports: torch.compile's Dynamo, inspect and linecache open
// it, and a candidate that cannot would fail on a PermissionError that
// names no real cause. As root, a world-readable copy (in a folder named by
// its content) stands in for it and becomes the candidate_path.
Status AddCandidateFile(const std::filesystem::path& candidate, CompatShimOptions& options);

}  // namespace hone
