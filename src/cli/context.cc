#include "cli/context.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "run/cpu_backend.h"
#include "task/task_loader.h"
#if HONE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace hone::cli {

BackendRegistry BuiltInBackends() {
  BackendRegistry r;
  RegisterCpuBackend(r);
#if HONE_HAVE_CUDA
  RegisterCudaBackend(r);
#else
  BackendKind cuda;
  cuda.name = "cuda";
  cuda.traits.label = "CUDA";
  cuda.traits.tasks_as = "cuda";
  cuda.unavailable = "this hone was built without the CUDA backend (no CUDA toolkit)";
  r.Register(std::move(cuda));
#endif
  return r;
}

Status BackendFailureFor(const std::string& candidate, const std::string& backend,
                         const Status& st) {
  if (st.code() != StatusCode::kUnavailable || backend == kHostBackend) return st;
  const LanguageRegistry& languages = BuiltInLanguages();
  auto language = languages.ForFile(candidate);
  std::string host;
  for (const Language& l : languages.all())
    if (l.RunsOn(kHostBackend))
      host += (host.empty() ? "" : ", ") + l.label + " (" + l.extension() + ")";
  return Status::Unavailable(
      candidate + ": " +
      (language.ok() ? "a " + (*language)->label + " candidate" : std::string("the candidate")) +
      " needs the " + backend + " backend, which cannot start here: " + st.message() +
      (host.empty() ? "" : "; this machine runs " + host + " candidates (--backend cpu)"));
}

Result<std::unique_ptr<EvalContext>> MakeEvalContext(const std::string& backend, int device) {
  auto ctx = std::make_unique<EvalContext>();
  HONE_ASSIGN_OR_RETURN(std::filesystem::path cache, CacheDir());
  ctx->env.backends = BuiltInBackends();
  ctx->env.languages = BuiltInLanguages();
  ctx->env.scratch_root = cache / "scratch";
  BackendSetup setup{cache, device};
  HONE_RETURN_IF_ERROR(ctx->env.backends.Open(kHostBackend, setup).status());
  HONE_RETURN_IF_ERROR(ctx->env.backends.Open(backend, setup).status());
  return ctx;
}

Result<Task> LoadTaskWith(std::unique_ptr<OracleService>& oracle, const std::string& path,
                          const std::string& device, const SizePolicy& sizes) {
  if (!IsPyTorchTaskFile(path)) return LoadNativeTask(path);
  if (!oracle || oracle->device() != device) {
    oracle.reset();
    HONE_ASSIGN_OR_RETURN(oracle, OracleService::Start(device));
  }
  return oracle->Load(path, sizes);
}

Status StartOracle(EvalContext& ctx, const std::string& backend) {
  HONE_ASSIGN_OR_RETURN(const Backend* b, ctx.env.backends.Get(backend));
  std::string device = b->oracle_device();
  if (!ctx.oracle || ctx.oracle->device() != device) {
    ctx.oracle.reset();
    HONE_ASSIGN_OR_RETURN(ctx.oracle, OracleService::Launch(device));
  }
  return Status::Ok();
}

Result<Task> LoadTask(EvalContext& ctx, const std::string& path, const std::string& backend,
                      const SizePolicy& sizes) {
  HONE_ASSIGN_OR_RETURN(const Backend* b, ctx.env.backends.Get(backend));
  return LoadTaskWith(ctx.oracle, path, b->oracle_device(), sizes);
}

Status CheckCandidateFile(const std::string& candidate) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(candidate, ec);
  const LanguageRegistry& languages = BuiltInLanguages();
  if (fs::is_directory(st))
    return Status::Invalid(candidate + ": is a directory; the candidate is one source file: " +
                           languages.ExtensionsText());
  if (!fs::exists(st)) return Status::Invalid(candidate + ": candidate file not found");
  if (!fs::is_regular_file(st)) return Status::Invalid(candidate + ": not a regular file");
  return languages.ForFile(candidate).status();
}

Result<std::string> CandidateBackend(const std::string& candidate, const std::string& requested) {
  HONE_ASSIGN_OR_RETURN(const Language* language, BuiltInLanguages().ForFile(candidate));
  return ResolveBackend(BuiltInBackends(), *language, candidate, requested);
}

std::function<bool(const std::filesystem::path&)> SolutionsFor(const std::string& backend) {
  const BackendKind* kind = BuiltInBackends().Kind(backend);
  const std::string device = kind ? kind->traits.tasks_as : backend;
  return [device](const std::filesystem::path& file) {
    auto language = BuiltInLanguages().ForFile(file);
    return language.ok() && (*language)->RunsOn(device);
  };
}

Status CheckOutputFile(const std::string& output) {
  if (output.empty()) return Status::Ok();
  std::filesystem::path parent = std::filesystem::path(output).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    return Status::Invalid("-o " + output + ": the folder " + parent.string() + " does not exist");
  if (std::filesystem::is_directory(output, ec))
    return Status::Invalid("-o " + output + ": is a folder; name the file to write");
  return Status::Ok();
}

namespace {
bool json_errors = false;
}  // namespace

void JsonErrors(bool on) { json_errors = on; }

std::string JsonErrorObject(const std::string& message, int exit_code) {
  return nlohmann::json{{"error", message}, {"exit_code", exit_code}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int ReportError(const Status& st) {
  std::fprintf(stderr, "hone: %s\n", st.message().c_str());
  int code = st.code() == StatusCode::kInvalidInput ? kExitUsage : kExitFailure;
  if (json_errors) std::printf("%s\n", JsonErrorObject(st.message(), code).c_str());
  std::fflush(stdout);
  return code;
}

Progress::Progress(const Output& out)
    : enabled_(out.terminal && !out.quiet && !out.json), lines_(!out.quiet && !out.json) {
  if (const char* after = std::getenv("HONE_PROGRESS_AFTER"); after && *after)
    slow_seconds_ = std::max(0, std::atoi(after));
  if (lines_ && !enabled_) ticker_ = std::thread([this] { Tick(); });
  if (out.log_file.empty()) return;
  log_ = std::fopen(out.log_file.c_str(), "a");
  if (!log_)
    std::fprintf(stderr, "hone: warning: --log %s: cannot open: %s\n", out.log_file.c_str(),
                 std::strerror(errno));
}

void Progress::Log(const std::string& line) {
  if (!log_ || line == last_logged_) return;
  last_logged_ = line;
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  std::fprintf(log_, "%s %s\n", stamp, line.c_str());
  std::fflush(log_);
}

void Progress::Note(const std::string& line) { Log(line); }

void Progress::Line(const std::string& line) {
  Log(line);
  if (!lines_) return;
  Clear();
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::Tick() {
  using namespace std::chrono;
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, seconds(1), [this] { return stop_; })) {
    if (current_.empty()) continue;
    auto now = steady_clock::now();
    if (now - since_ < seconds(slow_seconds_)) continue;
    if (said_ && now - said_at_ < seconds(kSlowStageRepeatSeconds)) continue;
    std::fprintf(stderr, "%s (%.0f s so far)\n", current_.c_str(),
                 duration<double>(now - since_).count());
    std::fflush(stderr);
    said_ = true;
    said_at_ = now;
  }
}

void Progress::Show(const std::string& line) {
  Log(line);
  if (ticker_.joinable()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (line != current_) {
      current_ = line;
      since_ = std::chrono::steady_clock::now();
      said_ = false;
    }
  }
  if (!enabled_) return;
  std::fprintf(stderr, "\r\033[K%s", line.substr(0, 120).c_str());
  std::fflush(stderr);
  shown_ = true;
}

Progress::~Progress() {
  Clear();
  if (ticker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_one();
    ticker_.join();
  }
  if (log_) std::fclose(log_);
}

void Progress::Clear() {
  if (ticker_.joinable()) {
    std::lock_guard<std::mutex> lock(mu_);
    current_.clear();
  }
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace hone::cli
