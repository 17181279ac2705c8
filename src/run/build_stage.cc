#include "run/build_stage.h"

#include "build/build_pool.h"
#include "build/error_trim.h"
#include "core/fs.h"
#include "run/lint_stage.h"
#include "verify/note_words.h"

namespace hone {

Status BuildStage::Lint(const std::filesystem::path& candidate) {
  if (!s_.opt.lint) {
    s_.v.AddNote(notes::StaticLintSkipped());
    return Status::Ok();
  }
  if (s_.compat) {
    pytorch_->LintScan();
    return Status::Ok();
  }
  HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(candidate));
  ApplyLint(
      s_, s_.language.lint.check ? s_.language.lint.check(source) : std::vector<LintFinding>{}, "");
  return Status::Ok();
}

Status BuildStage::Build(const std::filesystem::path& candidate, std::filesystem::path* cand_lib) {
  s_.Progress("build");
  // A compat candidate's shim is plain C++ whatever the backend.
  const Backend* builds = &s_.backend;
  if (s_.compat) {
    HONE_ASSIGN_OR_RETURN(builds, s_.env.backends.Get(kHostBackend));
  }
  BuildPool pool(builds->builder(), 2);
  HONE_RETURN_IF_ERROR(reference_.Build(pool));
  std::filesystem::path source = candidate;
  if (s_.compat || (pytorch_ && pytorch_->TimesBaselines())) {
    HONE_ASSIGN_OR_RETURN(CompatRuntime rt,
                          CompatRuntimeFromHello(s_.oracle->hello(), s_.oracle->python_dir()));
    s_.compat_runtime = std::move(rt);
  }
  if (s_.compat) {
    HONE_ASSIGN_OR_RETURN(source, pytorch_->WriteShim(candidate));
  }
  if (pytorch_) HONE_RETURN_IF_ERROR(pytorch_->BuildBaselines(pool));
  auto cand = pool.Submit(source).get();
  if (!cand.ok()) return cand.status();
  RecordBuild(*cand);
  if (!cand->ok) {
    s_.Decide(VerdictStatus::kCompileError, "the candidate does not compile: " +
                                                FirstCompilerError(cand->log) + "\n" + cand->log);
    return Status::Ok();
  }
  *cand_lib = cand->library;
  return Status::Ok();
}

void BuildStage::RecordBuild(const BuildResult& cand) {
  Verdict& v = s_.v;
  if (s_.compat) {  // the build that matters was the extensions' (PyTorchPath::Prebuild)
    v.build.cached = v.build.cached && cand.cached;
    v.build.seconds += cand.seconds;
    return;
  }
  v.build.cached = cand.cached;
  v.build.seconds = cand.seconds;
  v.build.log = cand.log;
  v.build.resources = cand.resources;
  s_.cand.kernels = cand.kernels;
}

}  // namespace hone
