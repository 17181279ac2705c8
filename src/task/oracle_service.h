// OracleService: PyTorch-defined tasks for the trusted worker, on one device.
//
// It owns one oracle process (task/oracle_client.h) for a device ("cpu",
// "cuda:0"), turns a KernelBench-format .py file into a Task (the contract's
// inputs are the forward arguments then the state_dict() tensors), and keeps
// what the oracle computed: on the CPU every (task, seed, distribution) is
// generated once per process and its files reused by every later
// candidate; on a GPU value sets go straight into the worker's device
// buffers (GenerateInto). Baselines are not the oracle's: the evaluator
// times them in sandboxes (compat/baseline_cache.h).
//
// Failures are values. A problem that cannot run here (a missing package, a
// model needing CUDA on a CPU oracle) is a skip, not an error; a problem
// whose own code fails is Status::Invalid naming its file and line. If the
// oracle process dies it is restarted once per request and its problems are
// loaded again. Thread-safety: none; one worker thread uses it.
#pragma once

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "task/oracle_client.h"
#include "task/task.h"

namespace hone {

// How module-level sizes are scaled before a problem runs (docs/ORACLE.md):
// a factor in (0, 1], a named policy ("full", "cpu24g", "small", "tiny"), or
// neither (the file's own sizes).
struct SizePolicy {
  std::optional<double> shape_scale;
  std::string policy;
  std::string text() const;  // "scale 0.25", "policy cpu24g", "full size"
};

// One tensor as the oracle wrote it, read into host memory.
struct HostTensor {
  Dtype dtype = HONE_F32;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;
};

// The tensors of one (seed, distribution): the contract's inputs (forward
// arguments then parameters), the expected outputs and, when the model ran in
// float64, the float64 reference outputs.
struct OracleSet {
  std::vector<HostTensor> inputs, outputs, ref64;
  bool ref64_available = false;
  std::string ref64_reason;
  // What the float64 reference cost the oracle now: 0 when it was read
  // from an earlier generate (or not made).
  double ref64_seconds = 0;
};

// One file of a folder: a task, or why it was skipped or failed.
struct FolderEntry {
  std::filesystem::path file;
  std::optional<Task> task;
  bool skipped = false;
  std::string reason;  // skipped or failed: why
};

// How long the oracle took, for docs/PERFORMANCE.md and `--json`.
struct OracleCost {
  double start_seconds = 0;     // interpreter start and torch import
  double load_seconds = 0;      // every Load
  double generate_seconds = 0;  // every Generate that ran (not cache hits)
  double read_seconds = 0;      // reading generated files
  int generated = 0, reused = 0;
};

class OracleService {
 public:
  // Starts the oracle for `device` ("cpu" or "cuda:N") and waits for its
  // hello (its interpreter has imported torch).
  static Result<std::unique_ptr<OracleService>> Start(const std::string& device,
                                                      OracleOptions options = {});
  // Starts it without waiting: the interpreter imports torch on a thread of
  // its own while the caller goes on, and the first call that needs the
  // oracle waits for it (a failed start is then that call's Status; hello()
  // is empty). The thread only starts the process; the service stays
  // single-threaded for its callers.
  static Result<std::unique_ptr<OracleService>> Launch(const std::string& device,
                                                       OracleOptions options = {});
  // The hello's "executable" and "runtime" before the hello has come, from
  // OracleClient::ProbeRuntime (asked once); the hello itself once it has.
  // Empty when no interpreter answers.
  nlohmann::json runtime_hint();
  ~OracleService();
  // The process exits next and needs the oracle no more: it is killed
  // without waiting for its exit (OracleClient::Abandon). Only for the end
  // of a one-shot command; the service is unusable after it.
  void Abandon();
  OracleService(const OracleService&) = delete;
  OracleService& operator=(const OracleService&) = delete;

  // How a problem loads. kRun: its model built and its forward run on the
  // oracle's device, a task that can be evaluated. kEstimate: built under
  // torch's FakeTensorMode (python/hone_oracle_estimate.py), shapes and
  // memory without values or device memory, in milliseconds at any size; a
  // task only for plans (PyTorchInfo::estimated), never evaluated.
  enum class LoadMode { kRun, kEstimate };
  // A task from one .py file. Skipped problems are Status::Unavailable whose
  // message starts with "skipped: ".
  Result<Task> Load(const std::filesystem::path& file, const SizePolicy& sizes,
                    LoadMode mode = LoadMode::kRun);
  // One file as a folder entry: its task, or why it was skipped or failed
  // (a skip's reason without "skipped: "; a failure that ended the oracle says so).
  FolderEntry LoadEntry(const std::filesystem::path& file, const SizePolicy& sizes,
                        LoadMode mode = LoadMode::kRun);
  // Every .py file of a folder (not starting with '_'), in natural order
  // (2_x.py before 10_x.py); a bad file is an entry, never a failure of the
  // whole folder. Status only when the folder cannot be read.
  Result<std::vector<FolderEntry>> LoadFolder(const std::filesystem::path& dir,
                                              const SizePolicy& sizes,
                                              LoadMode mode = LoadMode::kRun);

  // The tensors of (seed, distribution), generated once and then reused;
  // `scale`: OracleClient::Generate's. Here and in GenerateInto, `task` is a
  // PyTorch task (its ReferenceKind's site is the oracle); another is a
  // programmer error.
  Result<OracleSet> Set(const Task& task, int64_t seed, int distribution, double scale = 1);
  // Drops what Set keeps of that set (its files and its entry): a set used
  // once (a fresh sibling of the timing pool) would otherwise stay on disk
  // until the oracle goes.
  void Forget(const Task& task, int64_t seed, int distribution, double scale);
  // A value set written straight into the worker's device buffers (CUDA),
  // generated anew on every call (a set costs the oracle one forward and,
  // with ref64 targets, one float64 forward). Returns the set's float64
  // availability like Set().
  Result<OracleSet> GenerateInto(const Task& task, int64_t seed, int distribution,
                                 const OracleTargets& targets);
  // One load_inline / cpp_extension.load call of a compat candidate, made
  // ready for hone to build (python/hone_extbuild.py prepare): its sources
  // written into `build_dir` and the commands this torch would run. The
  // reply as is (build/torch_extension.h reads it); a call torch would refuse
  // is Status::Invalid with the oracle's words.
  Result<nlohmann::json> PrepareExtension(const std::string& kind, const nlohmann::json& args,
                                          const std::filesystem::path& build_dir);
  // Returns the oracle's cached device memory to the driver (a full-size
  // problem's memory plan needs it). Status when the oracle is not running.
  Status ReleaseDeviceMemory();
  // The device the oracle runs on, in words ("NVIDIA H100 80GB HBM3", the
  // CPU's model): part of a baseline's cache key.
  std::string device_description() const;

  const std::string& device() const { return device_; }
  // The oracle's hello reply (its interpreter, torch, devices) and the folder
  // of hone's Python files; empty when it is not running.
  nlohmann::json hello() const {
    AwaitLaunch();
    return client_ ? client_->hello() : nlohmann::json();
  }
  // The folder of hone_oracle.py, known before the oracle has started.
  std::filesystem::path python_dir() const;
  std::string torch_version() const;
  const OracleCost& cost() const { return cost_; }

 private:
  OracleService() = default;
  // Takes the launched client once its start has ended (a failure is kept
  // for EnsureRunning to return).
  void AwaitLaunch() const;
  Status EnsureRunning();
  Result<Task> ToTask(const OracleProblem& p, const std::filesystem::path& file,
                      const SizePolicy& sizes);
  // The problem id in the running oracle for a task (reloaded after a restart).
  Result<std::string> ProblemId(const Task& task);

  std::string device_;
  OracleOptions options_;
  // Mutable: a launched client is taken when first needed, from const
  // accessors too (AwaitLaunch).
  mutable std::unique_ptr<OracleClient> client_;
  mutable std::future<Result<std::unique_ptr<OracleClient>>> launching_;
  mutable Status launch_status_;       // a launch that failed
  mutable double launch_seconds_ = 0;  // written by the launch's thread
  std::optional<nlohmann::json> runtime_hint_;
  std::filesystem::path work_dir_;  // generated files; removed at the end
  struct Loaded {
    std::filesystem::path file;
    SizePolicy sizes;
    std::string problem;  // id in the current oracle process
  };
  std::map<std::string, Loaded> loaded_;  // by task hash
  std::map<std::string, OracleGenerated> generated_;
  int restarts_ = 0;
  mutable OracleCost cost_;  // AwaitLaunch adds the launch's start time
};

// The extension of a PyTorch problem file (KernelBench's format and those
// that hone turns into it) and of a ModelNew candidate: Python source.
inline constexpr const char* kPyTorchFileExtension = ".py";

// True for a path that names a PyTorch problem file.
bool IsPyTorchTaskFile(const std::filesystem::path& path);

}  // namespace hone
