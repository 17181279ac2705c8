#include "session/eval_context.h"

#include "core/backend_names.h"
#include "core/fs.h"
#include "core/trace.h"
#include "core/wording.h"
#include "cuda/cuda_backend.h"
#include "pytorch/pytorch_stages.h"
#include "run/cpu_backend.h"
#include "task/reference_kind.h"
#include "task/task_loader.h"

namespace hone {

BackendRegistry BuiltInBackends() {
  BackendRegistry r;
  RegisterCpuBackend(r);
  RegisterCudaBackend(r);
  return r;
}

Status BackendFailureFor(const std::string& candidate, const std::string& backend, const Status& st,
                         const LanguageRegistry& languages) {
  if (st.code() != StatusCode::kUnavailable || backend == kHostBackend) return st;
  auto language = languages.ForFile(candidate);
  std::string host;
  for (const Language& l : languages.all())
    if (l.run.RunsOn(kHostBackend))
      host += (host.empty() ? "" : ", ") + l.label + " (" + l.source.extension() + ")";
  return Status::Unavailable(
      candidate + ": " +
      (language.ok() ? "a " + (*language)->label + " candidate" : std::string("the candidate")) +
      " needs the " + backend + " backend, which cannot start here: " + st.message() +
      (host.empty() ? "" : "; this machine runs " + host + " candidates (--backend cpu)"));
}

Result<std::unique_ptr<EvalContext>> MakeEvalContext(const LanguageRegistry& languages,
                                                     const std::string& backend, int device,
                                                     bool start_oracle) {
  auto ctx = std::make_unique<EvalContext>();
  HONE_ASSIGN_OR_RETURN(std::filesystem::path cache, CacheDir());
  ctx->env.backends = BuiltInBackends();
  ctx->env.languages = languages;
  ctx->env.open_pytorch_path = OpenPyTorchStages;
  ctx->env.scratch_root = cache / "scratch";
  BackendSetup setup{cache, device};
  // The host's ceilings, measured once per machine (a fraction of a second),
  // before the oracle's torch import takes a core: beside it the copy probe
  // read 36 to 79 GB/s on a 2-core VM that reads 47 alone, and the figure is
  // kept for every later speed of light.
  HONE_RETURN_IF_ERROR(ctx->env.backends.Open(kHostBackend, setup).status());
  Trace("eval: host open");
  if (start_oracle) {
    const BackendKind* kind = ctx->env.backends.Kind(backend);
    if (kind && kind->oracle_device) {
      HONE_ASSIGN_OR_RETURN(ctx->oracle, OracleService::Launch(kind->oracle_device(device)));
    }
  }
  HONE_RETURN_IF_ERROR(ctx->env.backends.Open(backend, setup).status());
  return ctx;
}

Result<Task> LoadTaskWith(std::unique_ptr<OracleService>& oracle, const std::string& path,
                          const std::string& device, const SizePolicy& sizes,
                          const BackendRegistry& backends) {
  if (!LoadsThroughOracle(path)) return LoadNativeTask(path, TaskDevicesOf(backends));
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
  return LoadTaskWith(ctx.oracle, path, b->oracle_device(), sizes, ctx.env.backends);
}

Status CheckBackendName(const std::string& name, const std::string& where) {
  return CheckBackendIn(BuiltInBackends(), name, where);
}

Status CheckCandidateFile(const std::string& candidate, const LanguageRegistry& languages) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(candidate, ec);
  if (fs::is_directory(st))
    return Status::Invalid(candidate + ": is a directory; the candidate is one source file: " +
                           languages.ExtensionsText());
  if (!fs::exists(st)) return Status::Invalid(candidate + ": candidate file not found");
  if (!fs::is_regular_file(st)) return Status::Invalid(candidate + ": not a regular file");
  return languages.ForFile(candidate).status();
}

Result<std::string> CandidateBackend(const std::string& candidate, const std::string& requested,
                                     const LanguageRegistry& languages) {
  HONE_ASSIGN_OR_RETURN(const Language* language, languages.ForFile(candidate));
  return ResolveBackend(BuiltInBackends(), *language, candidate, requested);
}

std::function<bool(const std::filesystem::path&)> SolutionsFor(const std::string& backend,
                                                               const LanguageRegistry& languages,
                                                               const BackendRegistry& backends) {
  const BackendKind* kind = backends.Kind(backend);
  const std::string device = kind ? kind->traits.tasks_as : backend;
  return [device, languages](const std::filesystem::path& file) {
    auto language = languages.ForFile(file);
    return language.ok() && (*language)->run.RunsOn(device);
  };
}

}  // namespace hone
