// The static lint's verdict on a candidate: its findings judged by the
// rules of its language (lang/language.h, JudgeFindings). Native findings
// come from the language's check over the text (BuildStage::Lint), a
// ModelNew file's from its scan (CompatStages::Lint). The first rejecting
// finding decides a rejected verdict through RunState; warnings become
// notes; one check records the outcome. Not thread-safe (RunState).
#pragma once

#include <string>
#include <vector>

#include "run/run_state.h"
#include "verify/lint.h"

namespace hone {

// `clean`: the check's detail when nothing rejects.
void ApplyLint(RunState& s, const std::vector<LintFinding>& findings, const std::string& clean);

}  // namespace hone
