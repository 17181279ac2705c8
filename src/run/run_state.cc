#include "run/run_state.h"

namespace hone {

RunState::RunState(const EvaluatorEnv& env, const Backend& backend, OracleService* oracle,
                   const Task& task, const EvalOptions& opt, const ProgressFn& progress, Verdict& v,
                   bool compat)
    : env(env),
      backend(backend),
      oracle(oracle),
      task(task),
      opt(opt),
      v(v),
      compat(compat),
      deadline(Clock::now() + opt.total_timeout),
      progress_(progress) {
  v.backend = backend.name();
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
