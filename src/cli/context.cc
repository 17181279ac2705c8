#include "cli/context.h"

#include <unistd.h>

#include <cstdio>

#include "core/fs.h"
#include "core/paths.h"
#if HONE_HAVE_CUDA
#include "cuda/cuda_env.h"
#endif

namespace hone::cli {

Result<std::unique_ptr<EvalContext>> MakeEvalContext(bool with_cuda, int device) {
  auto ctx = std::make_unique<EvalContext>();
  HONE_ASSIGN_OR_RETURN(std::filesystem::path cache, CacheDir());
  HONE_ASSIGN_OR_RETURN(
      ctx->builder, CompilerBuilder::Create(CompileCache(cache / "builds"), CpuCompilerOptions()));
  HONE_ASSIGN_OR_RETURN(ctx->env.sandbox_executable, FindSandboxExecutable());
  HONE_ASSIGN_OR_RETURN(ctx->env.machine, LoadOrMeasureMachine(cache));
  ctx->env.builder = ctx->builder.get();
  ctx->env.scratch_root = cache / "scratch";
  if (with_cuda) {
#if HONE_HAVE_CUDA
    HONE_RETURN_IF_ERROR(SetUpCudaEnv(device, cache, ctx->env, &ctx->cuda_builder));
#else
    (void)device;
    return Status::Unavailable("this hone was built without the CUDA backend (no CUDA toolkit)");
#endif
  }
  return ctx;
}

int ReportError(const Status& st) {
  std::fprintf(stderr, "hone: %s\n", st.message().c_str());
  return st.code() == StatusCode::kInvalidInput ? kExitUsage : kExitFailure;
}

void Progress::Show(const std::string& line) {
  if (!enabled_) return;
  std::fprintf(stderr, "\r\033[K%s", line.substr(0, 120).c_str());
  std::fflush(stderr);
  shown_ = true;
}

void Progress::Clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace hone::cli
