// OracleClient: the worker's handle on the Python oracle (docs/ORACLE.md).
//
// Start() picks an interpreter, starts `<python> -u hone_oracle.py` with pipes
// on stdin and stdout (stderr goes to a log file, whose tail is quoted in error
// messages), and checks the protocol version with `hello`. Request() sends one
// JSON line and reads one reply line under a timeout.
//
// Failures are values: a reply `{"ok": false}` is Status::Invalid with the
// oracle's error text, and the client stays usable. A dead oracle, a timeout,
// an unreadable reply or a pipe failure is a Status too, and leaves the client
// unusable (alive() false, the process killed): start a new one.
//
// Thread-safety: none. One caller at a time (the worker owns one client per
// device); calls from several threads need an outside mutex.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone {

struct OracleOptions {
  // The interpreter. Empty: HONE_PYTHON when set (no fallback when it cannot
  // import torch), else the first of every `python3` on PATH and
  // /usr/bin/python3 whose oracle starts (one without torch or numpy ends
  // its hello with exit code 3, and the next is tried).
  std::string python;
  // hone_oracle.py. Empty: HONE_ORACLE when set, else hone_oracle.py in
  // FindPythonDir() (core/paths.h: an install's share/hone/python, else the
  // source tree's python/).
  std::filesystem::path script;
  std::string device;  // `--device`; empty: the oracle's default
  // Where the oracle's stderr goes (appended). Empty: a temporary file,
  // removed when the client ends; its tail is quoted in error messages.
  std::filesystem::path stderr_log;
  std::chrono::milliseconds hello_timeout{std::chrono::seconds(60)};  // torch import
  // Where the interpreter keeps the bytecode it compiles (`--bytecode-dir`,
  // sys.pycache_prefix), so that a machine whose site-packages has no .pyc
  // files compiles torch once, not in every process. Empty: core/fs.h
  // PythonBytecodeDir (the cache's, or one root-run sandboxes can read). An
  // environment that sets PYTHONPYCACHEPREFIX keeps its own.
  std::filesystem::path bytecode_dir;
  // Where the oracle keeps what it computes once per problem for later
  // processes (`--cache-dir`: the FLOP counts, whose counting took
  // 0.8-3.4 s of a first load). Empty: CacheDir()/oracle; none where there
  // is no cache folder.
  std::filesystem::path cache_dir;
};

inline constexpr int kOracleProtocol = 1;

// hone_oracle.py as `options` name it (OracleOptions::script); NotFound
// saying where it was looked for.
Result<std::filesystem::path> OracleScript(const OracleOptions& options);

// One entry of a contract list (inputs or outputs) or of a generate reply.
struct OracleTensorSpec {
  int index = 0;
  std::string name;
  std::string role;   // input, param, output (generate: also ref64_output)
  std::string kind;   // inputs: forward_arg, parameter, buffer; else empty
  std::string dtype;  // "f32", "i64", "bool", ...
  std::vector<int64_t> shape;
  std::string python_type;  // a Python number forward argument: "float", "int", "bool"
};

struct OracleSize {
  int64_t original = 0;
  int64_t scaled = 0;
};

struct OracleDistribution {
  int index = 0;
  std::string name, description, source;
};

// A `load` reply for one file.
struct OracleProblem {
  bool skipped = false;
  std::string skip_reason;  // when skipped
  std::string problem;      // the oracle's id ("p1"); empty when skipped
  std::string path;
  std::string task_hash;
  double scale = 1;
  std::string policy;  // empty: none
  std::map<std::string, OracleSize> sizes;
  std::map<std::string, int64_t> derived_sizes;
  std::map<std::string, int64_t> unscaled;
  std::string device;
  int64_t model_seed = 0;
  std::vector<OracleTensorSpec> inputs;   // forward args, then state_dict() in order
  std::vector<OracleTensorSpec> outputs;  // out, or out0, out1, ...
  std::vector<OracleDistribution> distributions;
  int64_t footprint_bytes = 0;
  nlohmann::json reply;  // the whole reply
};

// How to load: a shape scale, a named policy ("cpu24g", "small", ...), or
// neither (scale 1). Both set is an error from the oracle.
struct OracleLoadOptions {
  std::optional<double> shape_scale;
  std::string policy;
  int64_t model_seed = 0;
  // Built under torch's FakeTensorMode (python/hone_oracle_estimate.py):
  // shapes and memory without values; the oracle keeps no such problem.
  bool estimate = false;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
};

// A tensor written by `generate`.
struct OracleTensorFile {
  OracleTensorSpec spec;
  std::filesystem::path file;
  int64_t bytes = 0;
};

struct OracleGenerated {
  std::string problem;
  int64_t seed = 0;
  int distribution = 0;
  std::string distribution_name;
  std::vector<OracleTensorFile> tensors;  // inputs, params, outputs, ref64_outputs
  bool ref64_available = false;
  std::string ref64_reason;  // when not available
  double ref64_seconds = 0;  // the float64 forward and its copies out
  nlohmann::json reply;
};

// A buffer of the worker's that `generate` writes one tensor into: device
// memory exported through CUDA IPC (TrustedStore::AllocateShared).
struct OracleTarget {
  std::string ipc;  // the handle, 128 hex digits
  int64_t bytes = 0;
};

// Where one value set goes: the contract's inputs, the expected outputs and,
// when not empty, the float64 reference outputs.
struct OracleTargets {
  std::vector<OracleTarget> inputs, outputs, ref64;
  // The oracle may keep its cached device memory after this set (the
  // worker's memory plan has room for it: MemoryPlan::verify_keeps_caches);
  // otherwise it gives it back before it replies.
  bool keep_cache = false;
  // Every floating tensor forward argument multiplied by this after the
  // draw (OracleClient::Generate's `scale`).
  double scale = 1;
};

class OracleClient {
 public:
  static Result<std::unique_ptr<OracleClient>> Start(const OracleOptions& options = {});
  // What Start's hello will say about its interpreter ({"executable",
  // "runtime"}), asked of `hone_oracle.py --runtime` on the interpreter Start
  // would try first that has torch and numpy installed. It imports no torch
  // (about 0.05 s), so a caller can start work that needs the interpreter
  // (a warm sandbox) while the oracle imports torch. A hint only: Start may
  // still settle on another interpreter (one whose torch fails to import).
  // Status::Unavailable when no interpreter answers.
  static Result<nlohmann::json> ProbeRuntime(const OracleOptions& options = {});
  // Sends `exit`, waits briefly, then kills the process.
  ~OracleClient();
  // For a process about to exit that needs the oracle no more: kills its
  // process group now and does not wait for it. A graceful exit (Python's,
  // then the driver's teardown of gigabytes of device memory) takes about a
  // second that no one needs; the process's own exit hands the zombie to
  // init. alive() is false after it.
  void Abandon();
  OracleClient(const OracleClient&) = delete;
  OracleClient& operator=(const OracleClient&) = delete;

  // One request, one reply. Adds an "id" and checks that the reply echoes it.
  Result<nlohmann::json> Request(const nlohmann::json& request, std::chrono::milliseconds timeout);

  // `load` of one .py file (a folder path is an error here).
  Result<OracleProblem> Load(const std::filesystem::path& path,
                             const OracleLoadOptions& options = {});
  // `generate` into out_dir (created by the oracle if missing). `scale`
  // other than 1 multiplies every floating tensor forward argument of the
  // draw before the forward, as the worker scales a timed call's inputs
  // (pytorch/oracle_reference.h: a timing pool set that is an exact multiple
  // of another).
  Result<OracleGenerated> Generate(const std::string& problem, int64_t seed, int distribution,
                                   const std::filesystem::path& out_dir,
                                   std::chrono::milliseconds timeout = std::chrono::minutes(10),
                                   double scale = 1);

  // `generate` straight into the worker's device buffers (no files): the
  // reply's ref64 availability comes back in `g.ref64_*`; g.tensors is empty.
  Result<OracleGenerated> GenerateInto(
      const std::string& problem, int64_t seed, int distribution, const OracleTargets& targets,
      std::chrono::milliseconds timeout = std::chrono::minutes(10));

  bool alive() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const std::string& python() const { return python_; }
  const std::filesystem::path& script() const { return script_; }
  const nlohmann::json& hello() const { return hello_; }  // the hello reply
  // The last bytes the oracle wrote to stderr.
  std::string StderrTail(size_t max_bytes = 4096) const;

 private:
  // Start with the interpreter `python`: Status::Unavailable when it cannot
  // run or import torch.
  static Result<std::unique_ptr<OracleClient>> StartWith(const OracleOptions& options,
                                                         const std::filesystem::path& script,
                                                         const std::string& python);
  OracleClient() = default;
  // Closes both pipes (and drops what was read but not taken).
  void ClosePipes();
  // Closes its pipes, gives it `grace` to end, then kills its process group
  // and reaps it; returns how it ended ("exit code 1", "signal 9", "killed").
  std::string Kill(std::chrono::milliseconds grace);
  // The oracle ended or misbehaved: kill it and build the Status.
  Status Fail(const std::string& what);

  pid_t pid_ = -1;
  int to_child_ = -1;    // its stdin (a socket: writes never raise SIGPIPE)
  int from_child_ = -1;  // its stdout
  std::string buffer_;   // bytes read past the last reply line
  std::filesystem::path stderr_path_;
  bool remove_stderr_ = false;
  std::string python_;
  std::filesystem::path script_;
  nlohmann::json hello_;
  int64_t next_id_ = 1;
  std::string ended_how_;  // set by Fail()
};

// Reads a generated tensor's file, checking its size against desc.bytes.
Result<std::vector<std::byte>> ReadTensorFile(const OracleTensorFile& desc);

}  // namespace hone
