#include "mcp/tool_env.h"

#include <sys/stat.h>

#include "core/backend_names.h"
#include "core/fs.h"
#include "lang/language.h"

namespace hone::mcp {

namespace fs = std::filesystem;

namespace {

// The last lines of a command's standard error, for a message.
std::string LastLines(const std::string& text, size_t lines) {
  size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  size_t start = end + 1;
  for (size_t n = 0; n < lines && start > 0; ++n) {
    size_t nl = text.rfind('\n', start - 1);
    start = nl == std::string::npos ? 0 : nl;
    if (start == 0) break;
  }
  std::string tail = text.substr(start, end + 1 - start);
  return tail.empty() || tail[0] != '\n' ? tail : tail.substr(1);
}

std::string HowItEnded(const ChildOutcome& o) {
  if (o.term_signal) return "on signal " + std::to_string(o.term_signal);
  return "with exit code " + std::to_string(o.exit_code);
}

// When `problem` (a file, or a folder and the files in it) last changed: a
// task edited while the server runs is described again.
std::string LastChangeOf(const std::string& problem) {
  std::error_code ec;
  auto latest = fs::last_write_time(problem, ec);
  if (fs::is_directory(problem, ec))
    for (const auto& entry : fs::directory_iterator(problem, ec))
      latest = std::max(latest, entry.last_write_time(ec));
  return std::to_string(latest.time_since_epoch().count());
}

}  // namespace

std::vector<std::string> SizeFlags(const nlohmann::json& args) {
  std::vector<std::string> flags;
  if (args.contains("shape_scale"))
    flags.insert(flags.end(), {"--shape-scale", args["shape_scale"].dump()});
  if (args.contains("size_policy"))
    flags.insert(flags.end(), {"--size-policy", args["size_policy"].get<std::string>()});
  return flags;
}

namespace {

// `folder`, removed with what it holds when the last copy of the pointer goes.
std::shared_ptr<const fs::path> RemovedAtEnd(fs::path folder) {
  return std::shared_ptr<const fs::path>(new fs::path(std::move(folder)), [](const fs::path* p) {
    std::error_code ec;
    fs::remove_all(*p, ec);
    delete p;
  });
}

}  // namespace

Status ToolEnv::EnsureWorkFolder() {
  std::error_code ec;
  fs::create_directories(work_, ec);
  if (ec) return Status::Io("cannot make the work folder " + work_.string() + ": " + ec.message());
  // Writable by this server's user only: nobody else replaces a candidate
  // between its writing and its build. Readable by all, as a sandbox that
  // runs as another user ('nobody' under root) loads a Python candidate.
  MakeReadableByAll(work_, ec);
  return Status::Ok();
}

fs::path ToolEnv::NewWorkFile(const std::string& stem, const std::string& extension) {
  fs::path folder = work_ / ("call-" + std::to_string(next_file_++));
  std::error_code ec;
  fs::create_directories(folder, ec);
  MakeReadableByAll(folder, ec);
  return folder / (stem + extension);
}

Result<CandidateFile> ToolEnv::Candidate(const ToolCall& call) {
  const nlohmann::json& args = call.args;
  const bool by_path = args.contains("candidate"), by_text = args.contains("source");
  if (by_path && by_text)
    return Status::Invalid("arguments 'candidate' and 'source': give one of them, not both");
  if (!by_path && !by_text)
    return Status::Invalid(
        "argument 'candidate' (a file) or 'source' (the text, with 'language') is required");
  CandidateFile c;
  const Language* language = nullptr;
  if (by_path) {
    HONE_ASSIGN_OR_RETURN(c.path, GuardOf(call).Existing("candidate", args["candidate"]));
    auto found = languages_.ForFile(c.path);
    if (!found.ok()) return Status::Invalid("argument 'candidate': " + found.status().message());
    language = *found;
    HONE_ASSIGN_OR_RETURN(c.source, ReadFile(c.path));
  } else {
    if (!args.contains("language"))
      return Status::Invalid("argument 'language' is required with 'source' (" +
                             languages_.ExtensionsText() + ")");
    auto found = languages_.Get(args["language"].get<std::string>());
    if (!found.ok()) return Status::Invalid("argument 'language': " + found.status().message());
    language = *found;
    c.source = args["source"].get<std::string>();
    HONE_RETURN_IF_ERROR(EnsureWorkFolder());
    c.path = NewWorkFile("candidate", language->source.extension());
    c.work_folder = RemovedAtEnd(c.path.parent_path());
    HONE_RETURN_IF_ERROR(WriteFileAtomic(c.path, c.source));
    // Languages that share an extension (.py) are told apart by the text.
    auto read_as = languages_.ForFile(c.path);
    if (!read_as.ok() || (*read_as)->name != language->name)
      return Status::Invalid("argument 'source': the text is not " + language->name +
                             (read_as.ok() ? " (it reads as " + (*read_as)->name + ")" : ""));
  }
  c.language = language->name;
  c.device = language->run.devices.empty() ? kHostBackend : language->run.devices.front();
  return c;
}

Result<nlohmann::json> ToolEnv::RunHone(const ToolCall& call, std::vector<std::string> args,
                                        const std::optional<std::string>& device, bool progress,
                                        int* exit_code) {
  auto say_waiting = [&](int ahead) {
    call.progress("waiting for the " + *device + " device: " + std::to_string(ahead) +
                  " call(s) ahead");
  };
  std::optional<DeviceQueue::Turn> turn =
      device ? queue_.Acquire(*device, *call.cancel, say_waiting) : std::nullopt;
  if (device && !turn) return Status::Unavailable("cancelled");
  ChildRequest request;
  request.argv = {hone_};
  request.argv.insert(request.argv.end(), args.begin(), args.end());
  if (progress) {
    HONE_RETURN_IF_ERROR(EnsureWorkFolder());
    request.progress_log = NewWorkFile("progress", ".log");
    request.argv.insert(request.argv.end(), {"--log", request.progress_log.string()});
  }
  auto outcome = runner_.Run(request, *call.cancel, call.progress);
  std::error_code ec;
  if (progress) fs::remove_all(request.progress_log.parent_path(), ec);
  if (!outcome.ok()) return outcome.status();
  if (outcome->cancelled) return Status::Unavailable("cancelled");
  if (exit_code) *exit_code = outcome->exit_code;
  nlohmann::json j = nlohmann::json::parse(outcome->out, nullptr, false);
  if (j.is_discarded())
    return Status::Internal("hone " + args.front() + " ended " + HowItEnded(*outcome) +
                            " without a result: " + LastLines(outcome->err, 5));
  if (j.is_object() && j.contains("error") && j.contains("exit_code")) {
    std::string message = j["error"].is_string() ? j["error"].get<std::string>() : j.dump();
    return j["exit_code"] == 2 ? Status::Invalid(message) : Status::Unavailable(message);
  }
  return j;
}

Result<nlohmann::json> ToolEnv::TaskJson(const ToolCall& call, const std::string& problem,
                                         const std::vector<std::string>& size_args) {
  std::string key = problem + "\n" + LastChangeOf(problem);
  for (const auto& a : size_args) key += "\n" + a;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = tasks_.find(key); it != tasks_.end()) return it->second;
  }
  std::vector<std::string> args = {"task", "show", problem, "--json"};
  args.insert(args.end(), size_args.begin(), size_args.end());
  HONE_ASSIGN_OR_RETURN(nlohmann::json j, RunHone(call, args, std::nullopt, false));
  std::lock_guard<std::mutex> lock(mu_);
  tasks_[key] = j;
  return j;
}

}  // namespace hone::mcp
