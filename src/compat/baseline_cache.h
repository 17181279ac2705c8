// The eager and torch.compile baselines of PyTorch tasks, kept on disk.
//
// A baseline is the problem's own Model timed in a compat sandbox by the
// same protocol as candidates (pytorch/baseline_stage.h): so a problem timed against
// itself gives 1.00, and the time is GPU work, not Python. It is timed once
// per (task hash, device, torch version, flush mode, protocol) and read back
// by every later evaluation, in any process, as KernelBench caches its
// baseline times.
//
// Entries are JSON files written by rename, so concurrent hone processes
// never read half an entry; a damaged entry is a miss. Thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone {

// One baseline as timed (or why it could not be).
struct BaselineTiming {
  bool available = false;
  std::string reason;           // why not, when unavailable
  std::vector<double> samples;  // seconds
  double median = 0;            // seconds
  int warmup_calls = 0;
  std::string timer;  // how it was timed, e.g. "cuda events, held stream (hone sandbox)"
  // Host time per kernel launch that the reported time leaves out (the hold
  // hides launch work from the events): what PyTorch's own dispatch costs on
  // this machine, which compat candidates are held to. 0 when not measured.
  double host_seconds_per_launch = 0;
  double launches_per_call = 0;
  // Whether its timed calls were held: an unheld baseline's samples include
  // its host launch time, and it measured no host time per launch.
  bool held = true;
};

struct Baselines {
  BaselineTiming eager, compiled;
  bool cached = false;  // read from the disk cache, not timed now
  std::string device, torch_version;
};

// What a cached baseline stands for.
struct BaselineKey {
  std::string task_hash;
  std::string device;  // "NVIDIA H100 80GB HBM3", or the CPU's model
  std::string torch_version;
  std::string flush;  // the cache flush mode timed calls used
  std::string Hash() const;
};

class BaselineCache {
 public:
  explicit BaselineCache(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::optional<Baselines> Lookup(const BaselineKey& key) const;
  Status Store(const BaselineKey& key, const Baselines& b) const;
  std::filesystem::path PathFor(const BaselineKey& key) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace hone
