#include "run/run_state.h"

namespace hone {

RunState::RunState(const EvaluatorEnv& env, const Backend& backend, const Language& language,
                   OracleService* oracle, const Task& task, const EvalOptions& opt,
                   const ProgressFn& progress, Verdict& v)
    : env(env),
      backend(backend),
      language(language),
      oracle(oracle),
      task(task),
      opt(opt),
      v(v),
      compat(language.run.modelnew()),
      deadline(Clock::now() + opt.total_timeout),
      progress_(progress) {
  v.backend = backend.name();
  v.timing.event_timed = backend.traits().event_timing;
  v.language = language.name;
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

std::set<std::string> RunState::AllowedRules() const {
  std::set<std::string> allowed = opt.lint_allow;
  allowed.insert(task.lint_allow.begin(), task.lint_allow.end());
  return allowed;
}

bool RunState::LibraryAllowed() const { return AllowedRules().count("library") > 0; }

bool RunState::StoreHealthy() {
  Status st = store->status();
  if (st.ok()) return true;
  if (env_failure.ok()) env_failure = st;
  return false;
}

}  // namespace hone
