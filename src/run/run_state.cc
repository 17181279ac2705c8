#include "run/run_state.h"

namespace hone {

RunState::RunState(const EvaluatorEnv& env, const Task& task, const EvalOptions& opt,
                   const ProgressFn& progress, Verdict& v, std::string backend, bool compat)
    : env(env),
      task(task),
      opt(opt),
      v(v),
      backend(std::move(backend)),
      compat(compat),
      deadline(Clock::now() + opt.total_timeout),
      progress_(progress) {
  v.backend = this->backend;
}

void RunState::Decide(VerdictStatus s, std::string reason) {
  if (decided_) return;
  decided_ = true;
  v.status = s;
  v.reason = std::move(reason);
}

void RunState::Progress(const std::string& stage) const {
  if (progress_) progress_(stage);
}

bool RunState::LibraryAllowed() const {
  return opt.lint_allow.count("library") || task.lint_allow.count("library");
}

bool RunState::StoreHealthy() {
  Status st = store->status();
  if (st.ok()) return true;
  if (env_failure.ok()) env_failure = st;
  return false;
}

}  // namespace hone
