// The builds a bench needs, done before its evaluations and on all cores:
// the torch extensions of the compat (.py) candidates (through the
// evaluator, compat/compat_prebuild.h), then each task's native reference and
// each native candidate through the backend's builder. Evaluations that
// follow, one at a time on each lane (bench/lanes.h), find their builds in
// the cache.
//
// A build that fails is not reported here: its evaluation builds again and
// says so in its verdict. Progress goes to the listener. One thread drives
// it (the build pool has its own).
#pragma once

#include <vector>

#include "bench/listener.h"
#include "bench/plan.h"
#include "run/backend.h"
#include "run/evaluator.h"

namespace hone {

void PrebuildUnits(const BenchPlan& plan, const std::vector<const BenchUnit*>& todo,
                   const Backend& backend, Evaluator& evaluator, BenchListener& listener);

}  // namespace hone
