#include "session/optimize_session.h"

#include <fmt/format.h>

#include "core/fs.h"

namespace hone {
namespace {

// The task recorded with the run; a resumed run's task must be the one it
// started with (same content hash).
Status RecordTask(Store& store, int64_t run_id, const Task& task, const std::string& path,
                  bool resumed) {
  if (resumed) {
    HONE_ASSIGN_OR_RETURN(auto tasks, store.RunTasks(run_id));
    if (!tasks.empty() && tasks.front().task_hash != task.hash)
      return Status::Invalid(path + ": the task changed since run " + std::to_string(run_id) +
                             " started (its content hash differs); start a new run");
  }
  HONE_RETURN_IF_ERROR(store.PutTask({task.hash, task.name, AbsolutePath(path), ""}));
  return store.AddRunTask(run_id, task.hash, "", 0);
}

bool EveryCallFailed(const OptimizeResult& r) {
  return r.spend.candidates > 0 && r.llm_failures == r.spend.candidates;
}

Result<OptimizeSessionEnd> Run(OptimizeSession& s,
                               const std::function<void(const OptimizeEvent&)>& on_event) {
  if (!s.languages) return Status::Internal("optimize session: no language registry");
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<EvalContext> ctx,
                        MakeEvalContext(*s.languages, s.backend, s.device));
  HONE_ASSIGN_OR_RETURN(std::vector<Task> tasks,
                        LoadOptimizeParts(*ctx, s.problems, s.backend, s.sizes));
  const Task& task = tasks.front();
  HONE_RETURN_IF_ERROR(
      RecordTask(*s.store, s.run_id, task, s.problems.front().load.string(), s.resumed));
  Evaluator evaluator(ctx->env, ctx->oracle.get());
  OptimizeOptions& o = s.options;
  o.store = s.store;
  o.run_id = s.run_id;
  o.options_hash = EvalIdentity(s.backend, o.eval, s.sizes.text());
  if (tasks.size() > 1)
    for (size_t i = 0; i < tasks.size(); ++i) o.parts.push_back({s.problems[i].label, &tasks[i]});
  Optimizer optimizer(task, ctx->backend(s.backend), *s.provider, *s.prompts, evaluator, o);
  HONE_ASSIGN_OR_RETURN(OptimizeResult result, optimizer.Run(on_event));
  OptimizeSessionEnd end;
  end.summary = OptimizeResultJson(result, s.model, task.name, s.strategy);
  end.task = task.name;
  end.every_call_failed = !result.interrupted && EveryCallFailed(result);
  // Interrupted: left "running", for --resume.
  if (end.every_call_failed) {
    HONE_RETURN_IF_ERROR(s.store->SetRunStatus(s.run_id, "failed", end.summary));
  } else if (!result.interrupted) {
    HONE_RETURN_IF_ERROR(s.store->SetRunStatus(s.run_id, "finished", end.summary));
  }
  end.result = std::move(result);
  return end;
}

}  // namespace

Result<std::vector<Task>> LoadOptimizeParts(EvalContext& ctx, const std::vector<ProblemPart>& parts,
                                            const std::string& backend, const SizePolicy& sizes) {
  std::vector<Task> tasks;
  for (const ProblemPart& part : parts) {
    HONE_ASSIGN_OR_RETURN(Task t, LoadTask(ctx, part.load.string(), backend, sizes));
    tasks.push_back(std::move(t));
  }
  if (parts.size() > 1) {
    std::string labels;
    for (const ProblemPart& part : parts) labels += (labels.empty() ? "" : "; ") + part.label;
    tasks.front().description += fmt::format(
        "\n\nThis problem has {} parts, which differ in the sizes the module sets: {}. The "
        "problem below is the first; your code runs on every part, must be correct on each, and "
        "is scored by the geometric mean of its speedups.",
        parts.size(), labels);
  }
  return tasks;
}

Result<OptimizeSessionEnd> RunOptimizeSession(
    OptimizeSession session, const std::function<void(const OptimizeEvent&)>& on_event) {
  auto end = Run(session, on_event);
  if (!end.ok()) (void)session.store->SetRunStatus(session.run_id, "failed");
  return end;
}

}  // namespace hone
