// What a sandbox process is started with (SandboxConfig), set by whoever
// starts one (run/sandbox_launcher.cc, compat/compat_sandbox.cc) and read by
// SandboxProcess (process/sandbox_process.h); and the confinement flags of
// hone-sandbox's command line it implies. Plain data and a pure function;
// any thread.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace hone {

struct SandboxConfig {
  std::filesystem::path executable;  // hone-sandbox
  std::filesystem::path library;     // the built candidate
  std::filesystem::path scratch_root;
  size_t memory_limit_bytes = 4ull << 30;  // for the candidate's own allocations
  int cpu_seconds = 600;                   // RLIMIT_CPU over the process's life
  size_t llc_bytes = 0;                    // last-level cache size, for flushes
  int threads = 0;                         // OMP_NUM_THREADS; 0: all cores
  bool seccomp = true, landlock = true, netns = true;
  // Under an outside profiler (ncu, nsys): the sandbox keeps the worker's
  // environment and user and is not confined at all. Never for untrusted code.
  bool profile = false;
  std::vector<std::string> extra_args;  // e.g. --kernels for CUDA launch tracking
  // What the device's own driver reads from the environment, set by its
  // backend (Backend::ConfigureSandbox; the CUDA backend: CUDA MPS's client
  // settings, so a candidate joins the MPS server its worker uses). Passed to
  // every sandbox, compat or not, over hone's own entries by name.
  std::vector<std::string> device_env;
  // The CUDA driver reserves far more address space than it uses, so a CUDA
  // sandbox bounds its data segment (RLIMIT_DATA) instead of RLIMIT_AS.
  bool limit_address_space = true;
  int open_files = 64;  // RLIMIT_NOFILE (a compat sandbox gets 4096)
  // A compat candidate (compat/compat_candidate.h): Python runs in the sandbox.
  // It reads beneath `extra_read_dirs`, gets `extra_env` (overriding hone's
  // own entries by name), more file descriptors, and lazy CUDA module loading.
  bool compat = false;
  std::vector<std::string> extra_read_dirs;
  std::vector<std::string> extra_env;
  // Compat: the interpreter (shared libpython) and python/hone_compat.py, for
  // a warm sandbox that starts Python before its candidate is known.
  std::filesystem::path python_library, python_runner;
  // Compat: a warm pool may fork this config's warm sandboxes from one
  // zygote (SpawnZygote) instead of starting each (process/warm_pool.h).
  bool zygote = false;
};

// hone-sandbox's arguments for `c`'s confinement: the directories it may
// read and the rules switched off.
std::vector<std::string> ConfinementArgs(const SandboxConfig& c);

}  // namespace hone
