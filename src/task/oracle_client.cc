#include "task/oracle_client.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>
#include <thread>

#include "core/dtype.h"
#include "core/fs.h"
#include "core/interrupt_cleanup.h"
#include "core/json_text.h"
#include "core/paths.h"
#include "core/subprocess.h"
#include "core/trace.h"

namespace hone {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kMaxReplyBytes = size_t{256} << 20;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string FirstLine(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find('\n', b);
  return s.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

const char* kInstallHint =
    "install python3-torch python3-numpy (scripts/setup does) or set HONE_PYTHON";

}  // namespace

Result<fs::path> OracleScript(const OracleOptions& options) {
  fs::path p;
  std::string from;
  if (!options.script.empty()) {
    p = options.script;
    from = "OracleOptions::script";
  } else if (std::string e = Env("HONE_ORACLE"); !e.empty()) {
    p = e;
    from = "HONE_ORACLE";
  } else {
    HONE_ASSIGN_OR_RETURN(fs::path dir, FindPythonDir());
    p = dir / "hone_oracle.py";
    from = "hone's Python files; set HONE_ORACLE to override";
  }
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) {
    return Status::NotFound("oracle script not found: " + p.string() + " (from " + from + ")");
  }
  return fs::absolute(p, ec);
}

namespace {

// The oracle's command line for `python`, with `extra` flags.
std::vector<std::string> OracleArgv(const OracleOptions& options, const fs::path& script,
                                    const std::string& python,
                                    std::initializer_list<const char*> extra) {
  std::vector<std::string> argv = {python, "-u", script.string()};
  fs::path bytecode = options.bytecode_dir.empty() ? PythonBytecodeDir() : options.bytecode_dir;
  if (!bytecode.empty()) {
    argv.push_back("--bytecode-dir");
    argv.push_back(bytecode.string());
  }
  fs::path cache = options.cache_dir;
  if (cache.empty())
    if (auto dir = CacheDir(); dir.ok()) cache = *dir / "oracle";
  if (!cache.empty()) {
    argv.push_back("--cache-dir");
    argv.push_back(cache.string());
  }
  if (!options.device.empty()) {
    argv.push_back("--device");
    argv.push_back(options.device);
  }
  for (const char* e : extra) argv.push_back(e);
  return argv;
}

// The interpreters to try, in order: the one the caller names
// (OracleOptions::python or HONE_PYTHON) alone, else every `python3` on PATH
// and /usr/bin/python3.
std::vector<std::string> PythonCandidates(const OracleOptions& options) {
  if (!options.python.empty()) return {options.python};
  if (std::string e = Env("HONE_PYTHON"); !e.empty()) return {e};
  std::vector<std::string> candidates;
  std::set<std::string> seen;
  auto add = [&](const fs::path& p) {
    std::error_code ec;
    if (access(p.c_str(), X_OK) != 0) return;
    fs::path canon = fs::canonical(p, ec);
    if (!seen.insert(ec ? p.string() : canon.string()).second) return;
    candidates.push_back(p.string());
  };
  std::stringstream path(Env("PATH"));
  for (std::string dir; std::getline(path, dir, ':');) {
    if (!dir.empty()) add(fs::path(dir) / "python3");
  }
  add("/usr/bin/python3");
  return candidates;
}

std::vector<int64_t> Shape(const json& j) {
  std::vector<int64_t> s;
  for (const auto& d : j) s.push_back(d.get<int64_t>());
  return s;
}

OracleTensorSpec Spec(const json& j) {
  OracleTensorSpec t;
  t.index = j.at("index").get<int>();
  t.name = j.at("name").get<std::string>();
  t.role = j.at("role").get<std::string>();
  t.kind = j.value("kind", "");
  t.dtype = j.at("dtype").get<std::string>();
  t.shape = Shape(j.at("shape"));
  t.python_type = j.value("python_type", "");
  return t;
}

std::map<std::string, int64_t> IntMap(const json& j) {
  std::map<std::string, int64_t> m;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it->is_number_integer()) m[it.key()] = it->get<int64_t>();
    }
  }
  return m;
}

// A generate reply's "ref64": whether the float64 reference was made, why
// not, and what it cost.
void ReadRef64(const json& reply, OracleGenerated& g) {
  if (!reply.contains("ref64") || !reply["ref64"].is_object()) return;
  const json& r = reply["ref64"];
  g.ref64_available = r.value("available", false);
  g.ref64_reason = r.value("reason", "");
  g.ref64_seconds = r.value("seconds", 0.0);
}

}  // namespace

// Each interpreter is started as the oracle itself: one that cannot import
// torch (or cannot run) fails its hello with exit code 3, and the next is
// tried. A separate `--check` first would import torch twice, seconds each.
Result<std::unique_ptr<OracleClient>> OracleClient::Start(const OracleOptions& options) {
  HONE_ASSIGN_OR_RETURN(fs::path script, OracleScript(options));
  std::vector<std::string> candidates = PythonCandidates(options);
  std::string tried;
  for (const std::string& python : candidates) {
    auto c = StartWith(options, script, python);
    if (c.ok() || candidates.size() == 1) return c;
    if (c.status().code() != StatusCode::kUnavailable) return c;
    tried += (tried.empty() ? "" : "; ") + c.status().message();
  }
  return Status::Unavailable("no python3 that imports torch (tried: " +
                             (tried.empty() ? std::string("none found") : tried) +
                             "): " + kInstallHint);
}

Result<json> OracleClient::ProbeRuntime(const OracleOptions& options) {
  HONE_ASSIGN_OR_RETURN(fs::path script, OracleScript(options));
  CommandOptions run;
  run.timeout = std::chrono::seconds(20);
  std::string tried;
  for (const std::string& python : PythonCandidates(options)) {
    auto r = RunCommand(OracleArgv(options, script, python, {"--runtime"}), run);
    if (r.ok() && r->succeeded()) {
      // The JSON is the last line; a warning on stderr may come before it.
      std::string out = r->output;
      while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
      size_t nl = out.rfind('\n');
      json j = json::parse(nl == std::string::npos ? out : out.substr(nl + 1), nullptr, false);
      if (j.is_object() && j.contains("runtime")) return j;
    }
    tried += (tried.empty() ? "" : "; ") + python +
             (r.ok() ? " (" + FirstLine(r->output) + ")" : ": " + r.status().message());
  }
  return Status::Unavailable("no python3 with torch answered --runtime (tried: " +
                             (tried.empty() ? std::string("none found") : tried) + ")");
}

Result<std::unique_ptr<OracleClient>> OracleClient::StartWith(const OracleOptions& options,
                                                              const fs::path& script,
                                                              const std::string& python) {
  std::unique_ptr<OracleClient> c(new OracleClient());
  c->python_ = python;
  c->script_ = script;

  int log_fd = -1;
  if (options.stderr_log.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "hone-oracle-XXXXXX.log").string();
    log_fd = mkostemps(tmpl.data(), 4, O_CLOEXEC);
    if (log_fd < 0) return Status::Io("oracle stderr log " + tmpl + ": " + strerror(errno));
    c->stderr_path_ = tmpl;
    c->remove_stderr_ = true;
    RemoveOnInterrupt(c->stderr_path_);
  } else {
    c->stderr_path_ = options.stderr_log;
    log_fd = open(options.stderr_log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      return Status::Io("oracle stderr log " + options.stderr_log.string() + ": " +
                        strerror(errno));
    }
  }

  // stdin: a socket pair, so that writing to a dead oracle is EPIPE (send with
  // MSG_NOSIGNAL), never SIGPIPE. stdout: a pipe. exec errors: a third pipe.
  int in_sock[2], out_pipe[2], err_pipe[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_sock) != 0) {
    close(log_fd);
    return Status::Io(std::string("socketpair: ") + strerror(errno));
  }
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(log_fd);
    close(in_sock[0]);
    close(in_sock[1]);
    return Status::Io(std::string("pipe: ") + strerror(errno));
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(log_fd);
    close(in_sock[0]);
    close(in_sock[1]);
    close(out_pipe[0]);
    close(out_pipe[1]);
    return Status::Io(std::string("pipe: ") + strerror(errno));
  }

  // A worker killed outright (SIGKILL, the OOM killer) leaves no one to end
  // its oracle: it ends itself when its request socket's other end closes.
  std::vector<std::string> argv = OracleArgv(options, script, python, {"--exit-with-worker"});
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    for (int fd :
         {log_fd, in_sock[0], in_sock[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      close(fd);
    }
    return Status::Io(std::string("fork: ") + strerror(e));
  }
  if (pid == 0) {
    // Its own process group: Kill() ends anything it started too.
    setpgid(0, 0);
    dup2(in_sock[1], 0);
    dup2(out_pipe[1], 1);
    dup2(log_fd, 2);
    ExecOrReportErrno(args.data(), err_pipe[1]);
  }
  close(in_sock[1]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(log_fd);
  c->pid_ = pid;
  c->to_child_ = in_sock[0];
  c->from_child_ = out_pipe[0];
  int exec_errno = 0;
  ssize_t got = read(err_pipe[0], &exec_errno, sizeof exec_errno);
  close(err_pipe[0]);
  if (got == sizeof exec_errno) {
    c->Kill(std::chrono::milliseconds(0));
    return Status::Unavailable(python + ": cannot run (" + strerror(exec_errno) +
                               "): " + kInstallHint);
  }
  fcntl(c->to_child_, F_SETFL, fcntl(c->to_child_, F_GETFL) | O_NONBLOCK);

  auto hello = c->Request({{"op", "hello"}}, options.hello_timeout);
  if (!hello.ok()) {
    if (c->ended_how_ == "exit code 3") {  // EXIT_NO_TORCH
      return Status::Unavailable(python + " does not import torch (" + hello.status().message() +
                                 "): " + kInstallHint);
    }
    return hello.status().With("oracle hello: ");
  }
  int protocol = hello->value("protocol", -1);
  if (protocol != kOracleProtocol) {
    return Status::Invalid("oracle " + script.string() + " speaks protocol " +
                           std::to_string(protocol) + ", hone speaks " +
                           std::to_string(kOracleProtocol));
  }
  c->hello_ = std::move(hello).value();
  return c;
}

OracleClient::~OracleClient() {
  if (alive()) {
    auto r = Request({{"op", "exit"}}, std::chrono::seconds(2));
    (void)r;
  }
  Kill(std::chrono::seconds(2));
  if (remove_stderr_) {
    std::error_code ec;
    fs::remove(stderr_path_, ec);
    ForgetOnInterrupt(stderr_path_);
  }
}

void OracleClient::ClosePipes() {
  if (to_child_ >= 0) close(to_child_);  // end of input: the oracle exits
  to_child_ = -1;
  if (from_child_ >= 0) close(from_child_);
  from_child_ = -1;
  buffer_.clear();
}

void OracleClient::Abandon() {
  // Killed before its pipes close: an oracle started --exit-with-worker
  // would otherwise see them close and exit on its own, a race with the
  // kill that ends the same way but leaves an exit code for a killed one.
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);  // its group: setpgid(0, 0) at its start
    kill(pid_, SIGKILL);
    pid_ = -1;
  }
  ClosePipes();
}

std::string OracleClient::Kill(std::chrono::milliseconds grace) {
  ClosePipes();
  if (pid_ <= 0) return "";
  pid_t pid = pid_;
  pid_ = -1;
  // Wait for it to end on its own (WNOWAIT: a zombie keeps its pid and process
  // group id reserved, so killing the group afterwards cannot hit a stranger).
  auto deadline = Clock::now() + grace;
  bool ended = false;
  while (Clock::now() < deadline) {
    siginfo_t info{};
    int r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid) {
      ended = true;
      break;
    }
    if (r < 0 && errno != EINTR) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(-pid, SIGKILL);  // anything it started in its group
  if (!ended) kill(pid, SIGKILL);
  int wstatus = 0;
  pid_t r;
  while ((r = waitpid(pid, &wstatus, 0)) < 0 && errno == EINTR) {
  }
  if (r != pid) return "not reaped";
  if (!ended) return "killed";
  if (WIFEXITED(wstatus)) return "exit code " + std::to_string(WEXITSTATUS(wstatus));
  if (WIFSIGNALED(wstatus)) {
    return "signal " + std::to_string(WTERMSIG(wstatus)) + " (" + strsignal(WTERMSIG(wstatus)) +
           ")";
  }
  return "ended";
}

Status OracleClient::Fail(const std::string& what) {
  std::string how = Kill(std::chrono::milliseconds(500));
  ended_how_ = how;
  std::string msg = "oracle (" + python_ + " " + script_.string() + ") " + what;
  if (!how.empty()) msg += " [" + how + "]";
  std::string tail = StderrTail(2000);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (!tail.empty()) msg += "; stderr tail:\n" + tail;
  return Status::Internal(msg);
}

std::string OracleClient::StderrTail(size_t max_bytes) const {
  if (stderr_path_.empty()) return "";
  std::ifstream in(stderr_path_, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff start = size > static_cast<std::streamoff>(max_bytes)
                             ? size - static_cast<std::streamoff>(max_bytes)
                             : 0;
  in.seekg(start);
  std::string s(static_cast<size_t>(size - start), '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  s.resize(static_cast<size_t>(in.gcount()));
  if (start > 0) {
    size_t nl = s.find('\n');
    if (nl != std::string::npos) s = s.substr(nl + 1);
  }
  return s;
}

namespace {

// The oracle's own steps of one request (python/hone_oracle_trace.py: it
// sends them only when HONE_TRACE is set), into hone's trace; a reply's
// readers never see them.
void TraceOracleSteps(const std::string& op, json& reply) {
  auto it = reply.find("trace");
  if (it == reply.end()) return;
  if (TraceEnabled() && it->is_array())
    for (const json& step : *it)
      if (step.is_array() && step.size() == 2 && step[0].is_string() && step[1].is_number())
        Trace(fmt::format("oracle {}: {} (+{:.3f}s into the request)", op,
                          step[0].get<std::string>(), step[1].get<double>()));
  reply.erase(it);
}

}  // namespace

Result<json> OracleClient::Request(const json& request, std::chrono::milliseconds timeout) {
  if (!alive()) {
    return Status::Unavailable("oracle is not running (it ended or timed out earlier)");
  }
  json req = request;
  int64_t id = next_id_++;
  req["id"] = id;
  std::string op = req.value("op", "?");
  std::string line = JsonText(req) + "\n";
  auto deadline = Clock::now() + timeout;
  auto left_ms = [&] {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(ms.count(), 1000)));
  };
  std::string timed_out =
      "timed out after " + std::to_string(timeout.count()) + " ms on '" + op + "'";

  size_t sent = 0;
  while (sent < line.size()) {
    if (Clock::now() >= deadline) {
      Status s = Fail(timed_out + " (writing the request)");
      return Status::Unavailable(s.message());
    }
    pollfd p{to_child_, POLLOUT, 0};
    int n = poll(&p, 1, left_ms());
    if (n < 0 && errno != EINTR) return Fail(std::string("poll: ") + strerror(errno));
    if (n <= 0) continue;
    ssize_t k =
        send(to_child_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return Fail("ended (writing '" + op + "': " + strerror(errno) + ")");
    }
    sent += static_cast<size_t>(k);
  }

  size_t nl;
  size_t scanned = 0;
  char buf[65536];
  while ((nl = buffer_.find('\n', scanned)) == std::string::npos) {
    scanned = buffer_.size();
    if (buffer_.size() > kMaxReplyBytes) return Fail("sent a reply line over 256 MiB");
    if (Clock::now() >= deadline) {
      Status s = Fail(timed_out);
      return Status::Unavailable(s.message());
    }
    pollfd p{from_child_, POLLIN, 0};
    int n = poll(&p, 1, left_ms());
    if (n < 0 && errno != EINTR) return Fail(std::string("poll: ") + strerror(errno));
    if (n <= 0) continue;
    ssize_t k = read(from_child_, buf, sizeof buf);
    if (k < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Fail(std::string("read: ") + strerror(errno));
    }
    if (k == 0) return Fail("ended before replying to '" + op + "'");
    buffer_.append(buf, static_cast<size_t>(k));
  }
  std::string reply_line = buffer_.substr(0, nl);
  buffer_.erase(0, nl + 1);

  json reply = json::parse(reply_line, nullptr, /*allow_exceptions=*/false);
  if (reply.is_discarded() || !reply.is_object() || !reply.contains("ok") ||
      !reply["ok"].is_boolean()) {
    return Fail("sent a reply that is not a JSON object with \"ok\": " + reply_line.substr(0, 200));
  }
  if (reply.contains("id") && reply["id"] != json(id)) {
    return Fail("replied out of order (sent id " + std::to_string(id) + ", got " +
                JsonText(reply["id"]) + ")");
  }
  TraceOracleSteps(op, reply);
  if (!reply["ok"].get<bool>()) {
    const json& e = reply.contains("error") ? reply["error"] : json("(no error text)");
    return Status::Invalid(e.is_string() ? e.get<std::string>() : JsonText(e));
  }
  return reply;
}

Result<OracleProblem> OracleClient::Load(const fs::path& path, const OracleLoadOptions& options) {
  std::error_code ec;
  json req = {{"op", "load"},
              {"path", fs::absolute(path, ec).string()},
              {"model_seed", options.model_seed}};
  if (options.shape_scale) req["shape_scale"] = *options.shape_scale;
  if (!options.policy.empty()) req["policy"] = options.policy;
  if (options.estimate) req["estimate"] = true;
  HONE_ASSIGN_OR_RETURN(json reply, Request(req, options.timeout));
  OracleProblem p;
  try {
    std::string status = reply.at("status").get<std::string>();
    p.path = reply.value("path", path.string());
    if (status == "skipped") {
      p.skipped = true;
      p.skip_reason = reply.value("reason", "");
      p.reply = std::move(reply);
      return p;
    }
    if (status != "loaded") {
      return Status::Invalid(path.string() + ": load gave status '" + status +
                             "' (a folder? Load takes one .py file)");
    }
    p.problem = reply.at("problem").get<std::string>();
    p.task_hash = reply.at("task_hash").get<std::string>();
    p.scale = reply.at("scale").get<double>();
    if (reply.contains("policy") && reply["policy"].is_string()) {
      p.policy = reply["policy"].get<std::string>();
    }
    if (reply.contains("sizes") && reply["sizes"].is_object()) {
      for (auto it = reply["sizes"].begin(); it != reply["sizes"].end(); ++it) {
        p.sizes[it.key()] = {it->at("original").get<int64_t>(), it->at("scaled").get<int64_t>()};
      }
    }
    p.derived_sizes = IntMap(reply.value("derived_sizes", json::object()));
    p.unscaled = IntMap(reply.value("unscaled", json::object()));
    p.device = reply.value("device", "");
    p.model_seed = reply.value("model_seed", int64_t{0});
    for (const auto& t : reply.at("inputs")) p.inputs.push_back(Spec(t));
    for (const auto& t : reply.at("outputs")) p.outputs.push_back(Spec(t));
    if (reply.contains("distributions")) {
      for (const auto& d : reply["distributions"]) {
        p.distributions.push_back({d.at("index").get<int>(), d.value("name", ""),
                                   d.value("description", ""), d.value("source", "")});
      }
    }
    p.footprint_bytes = reply.value("footprint_bytes", int64_t{0});
  } catch (const json::exception& e) {
    return Status::Internal("oracle: malformed load reply for " + path.string() + ": " + e.what());
  }
  p.reply = std::move(reply);
  return p;
}

Result<OracleGenerated> OracleClient::Generate(const std::string& problem, int64_t seed,
                                               int distribution, const fs::path& out_dir,
                                               std::chrono::milliseconds timeout, double scale) {
  std::error_code ec;
  json req = {{"op", "generate"},
              {"problem", problem},
              {"seed", seed},
              {"distribution", distribution},
              {"out_dir", fs::absolute(out_dir, ec).string()}};
  if (scale != 1) req["scale"] = scale;
  HONE_ASSIGN_OR_RETURN(json reply, Request(req, timeout));
  OracleGenerated g;
  try {
    g.problem = reply.value("problem", problem);
    g.seed = reply.value("seed", seed);
    g.distribution = reply.value("distribution", distribution);
    g.distribution_name = reply.value("distribution_name", "");
    for (const auto& t : reply.at("tensors")) {
      OracleTensorFile f;
      f.spec = Spec(t);
      f.file = t.at("file").get<std::string>();
      f.bytes = t.at("bytes").get<int64_t>();
      g.tensors.push_back(std::move(f));
    }
    ReadRef64(reply, g);
  } catch (const json::exception& e) {
    return Status::Internal("oracle: malformed generate reply for " + problem + ": " + e.what());
  }
  g.reply = std::move(reply);
  return g;
}

Result<OracleGenerated> OracleClient::GenerateInto(const std::string& problem, int64_t seed,
                                                   int distribution, const OracleTargets& targets,
                                                   std::chrono::milliseconds timeout) {
  auto list = [](const std::vector<OracleTarget>& ts) {
    json out = json::array();
    for (const auto& t : ts) out.push_back({{"ipc", t.ipc}, {"offset", 0}, {"bytes", t.bytes}});
    return out;
  };
  json t = {{"inputs", list(targets.inputs)}, {"outputs", list(targets.outputs)}};
  t["ref64"] = targets.ref64.empty() ? json(nullptr) : list(targets.ref64);
  json req = {{"op", "generate"},
              {"problem", problem},
              {"seed", seed},
              {"distribution", distribution},
              {"targets", std::move(t)}};
  if (targets.keep_cache) req["keep_cache"] = true;
  if (targets.scale != 1) req["scale"] = targets.scale;
  HONE_ASSIGN_OR_RETURN(json reply, Request(req, timeout));
  OracleGenerated g;
  g.problem = reply.value("problem", problem);
  g.seed = seed;
  g.distribution = distribution;
  g.distribution_name = reply.value("distribution_name", "");
  ReadRef64(reply, g);
  g.reply = std::move(reply);
  return g;
}

Result<std::vector<std::byte>> ReadTensorFile(const OracleTensorFile& desc) {
  if (auto dt = ParseDtype(desc.spec.dtype)) {
    int64_t n = 1;
    for (int64_t d : desc.spec.shape) n *= d;
    if (n * static_cast<int64_t>(DtypeSize(*dt)) != desc.bytes) {
      return Status::Invalid(desc.file.string() + ": " + std::to_string(desc.bytes) +
                             " bytes do not match " + desc.spec.dtype + " of " + std::to_string(n) +
                             " elements");
    }
  }
  std::error_code ec;
  auto size = fs::file_size(desc.file, ec);
  if (ec) return Status::Io(desc.file.string() + ": " + ec.message());
  if (static_cast<int64_t>(size) != desc.bytes) {
    return Status::Io(desc.file.string() + ": " + std::to_string(size) + " bytes, expected " +
                      std::to_string(desc.bytes));
  }
  std::ifstream in(desc.file, std::ios::binary);
  if (!in) return Status::Io(desc.file.string() + ": cannot open");
  std::vector<std::byte> data(size);
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(size));
  if (static_cast<size_t>(in.gcount()) != size) {
    return Status::Io(desc.file.string() + ": short read");
  }
  return data;
}

}  // namespace hone
