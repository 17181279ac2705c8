#include "tune/autotune.h"

#include <future>

#include "build/build_pool.h"
#include "core/fs.h"
#include "core/temp_dir.h"
#include "tune/tunables.h"

namespace hone {

namespace {

namespace fs = std::filesystem;

Result<std::vector<fs::path>> WriteVariants(const std::string& source, const fs::path& candidate,
                                            const std::vector<TuneAssignment>& variants,
                                            const fs::path& dir) {
  std::vector<fs::path> files;
  for (size_t i = 0; i < variants.size(); ++i) {
    fs::path f = dir / (candidate.stem().string() + ".v" + std::to_string(i) +
                        candidate.extension().string());
    HONE_RETURN_IF_ERROR(WriteFileAtomic(f, ApplyTunables(source, variants[i])));
    files.push_back(f);
  }
  return files;
}

void Prebuild(Builder* builder, const std::vector<fs::path>& files) {
  if (!builder) return;
  BuildPool pool(*builder);
  std::vector<std::future<Result<BuildResult>>> builds;
  for (const auto& f : files) builds.push_back(pool.Submit(f));
  for (auto& b : builds) b.wait();
}

Verdict::TuneTrial TrialOf(const std::string& params, const Verdict& v) {
  Verdict::TuneTrial t;
  t.params = params;
  t.status = v.status;
  t.reason = v.status == VerdictStatus::kPassed ? "" : v.reason;
  if (v.status == VerdictStatus::kPassed && v.timing.candidate_time)
    t.median_seconds = v.timing.candidate_time->summary.median;
  return t;
}

// The fastest variant evaluated again with the profiler, for its profile
// alone: the verdict that chose it stands.
void ProfileWinner(Evaluator& evaluator, const Task& task, const fs::path& file,
                   const EvalOptions& options, const ProgressFn& progress, Verdict& out) {
  ProgressFn inner = [&](const std::string& stage) {
    if (progress) progress(out.tuning.params + " (profile): " + stage);
  };
  auto profiled = evaluator.Evaluate(task, file, options, inner);
  if (!profiled.ok())
    out.profile.emplace().not_run =
        "profiling the fastest variant failed: " + profiled.status().message();
  else if (profiled->profile)
    out.profile = std::move(profiled->profile);
  else
    out.profile.emplace().not_run = "the fastest variant did not pass again: " + profiled->reason;
}

// The candidate's declared tunables; Status::Invalid naming the file for a
// malformed declaration or tunables in a ModelNew file.
Result<std::vector<Tunable>> DeclaredTunables(const Evaluator& evaluator, const fs::path& candidate,
                                              const std::string& source) {
  auto tunables = ParseTunables(source);
  if (!tunables.ok())
    return Status::Invalid(candidate.string() + ": " + tunables.status().message());
  if (!tunables->empty() && evaluator.env().languages.IsModelNew(candidate))
    return Status::Invalid(candidate.string() +
                           ": tunables are for native candidates (.cpp, .cu), not ModelNew files");
  return tunables;
}

// Every variant of a candidate whose `tunables` are declared in `source`.
Result<Verdict> EvaluateDeclared(Evaluator& evaluator, Builder* builder, const Task& task,
                                 const fs::path& candidate, const std::string& source,
                                 const std::vector<Tunable>& tunables, const EvalOptions& options,
                                 const ProgressFn& progress) {
  if (tunables.empty()) return evaluator.Evaluate(task, candidate, options, progress);
  std::vector<TuneAssignment> variants = Combinations(tunables);
  HONE_ASSIGN_OR_RETURN(fs::path cache, CacheDir());
  HONE_ASSIGN_OR_RETURN(fs::path tmp, MakeTempDir(cache / "tmp", "tune"));
  TempDirOwner folder(tmp);
  HONE_ASSIGN_OR_RETURN(std::vector<fs::path> files,
                        WriteVariants(source, candidate, variants, folder.path()));
  if (progress) progress("building " + std::to_string(files.size()) + " tuning variants");
  Prebuild(builder, files);

  // Variants are compared by time; only the winner is profiled, below.
  EvalOptions variant_options = options;
  variant_options.metrics = false;
  std::optional<Verdict> best, first;
  size_t best_index = 0;
  double best_median = 0;
  std::vector<Verdict::TuneTrial> trials;
  for (size_t i = 0; i < files.size(); ++i) {
    std::string params = FormatAssignment(variants[i]);
    ProgressFn inner = [&](const std::string& stage) {
      if (progress) progress(params + ": " + stage);
    };
    HONE_ASSIGN_OR_RETURN(Verdict v, evaluator.Evaluate(task, files[i], variant_options, inner));
    v.candidate = candidate.string();
    v.tuning.params = params;
    trials.push_back(TrialOf(params, v));
    // Untimed evaluations (--no-time) keep the first variant that passed.
    double median = trials.back().median_seconds;
    if (v.status == VerdictStatus::kPassed && (!best || (median > 0 && median < best_median))) {
      best = v;
      best_index = i;
      best_median = median;
    }
    if (!first) first = std::move(v);
  }
  Verdict out = best ? *best : *first;
  out.tuning.trials = std::move(trials);
  if (best && options.metrics)
    ProfileWinner(evaluator, task, files[best_index], options, progress, out);
  return out;
}

}  // namespace

Result<Verdict> EvaluateCandidate(Evaluator& evaluator, Builder* builder, const Task& task,
                                  const fs::path& candidate, const EvalOptions& options,
                                  const ProgressFn& progress) {
  HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(candidate));
  auto declared = DeclaredTunables(evaluator, candidate, source);
  if (!declared.ok()) {
    Verdict v;
    v.status = VerdictStatus::kCompileError;
    v.reason = declared.status().message();
    v.candidate = candidate.string();
    v.task = task.name;
    v.backend = options.backend;
    const BackendKind* kind = evaluator.env().backends.Kind(options.backend);
    v.timing.event_timed = kind && kind->traits.event_timing;
    return v;
  }
  return EvaluateDeclared(evaluator, builder, task, candidate, source, *declared, options,
                          progress);
}

Result<Verdict> EvaluateTuned(Evaluator& evaluator, Builder* builder, const Task& task,
                              const fs::path& candidate, const EvalOptions& options,
                              const ProgressFn& progress) {
  HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(candidate));
  HONE_ASSIGN_OR_RETURN(std::vector<Tunable> tunables,
                        DeclaredTunables(evaluator, candidate, source));
  return EvaluateDeclared(evaluator, builder, task, candidate, source, tunables, options, progress);
}

}  // namespace hone
