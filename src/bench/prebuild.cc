#include "bench/prebuild.h"

#include <fmt/format.h>

#include <future>

#include "build/build_pool.h"
#include "task/reference_kind.h"

namespace hone {

void PrebuildUnits(const BenchPlan& plan, const std::vector<const BenchUnit*>& todo,
                   const Backend& backend, Evaluator& evaluator, BenchListener& listener) {
  const LanguageRegistry& languages = evaluator.env().languages;
  std::vector<std::filesystem::path> compat;
  for (const BenchUnit* u : todo)
    if (languages.IsModelNew(u->candidate)) compat.push_back(u->candidate);
  evaluator.PrebuildCompat(compat, [&](int done, int total) {
    listener.Show(fmt::format("building torch extensions {}/{}", done, total));
  });
  BuildPool pool(backend.builder());
  std::vector<std::future<Result<BuildResult>>> builds;
  std::vector<bool> reference_queued(plan.tasks.size(), false);
  for (const BenchUnit* u : todo) {
    const BenchTask& t = plan.tasks[u->task];
    if (!reference_queued[u->task]) {
      reference_queued[u->task] = true;
      if (auto ref =
              KindOf(*t.task).programs().ReferenceProgram(*t.task, backend.traits().tasks_as))
        builds.push_back(pool.Submit(*ref));
    }
    if (!languages.IsModelNew(u->candidate)) builds.push_back(pool.Submit(u->candidate));
  }
  for (size_t i = 0; i < builds.size(); ++i) {
    listener.Show(
        fmt::format("building {}/{} on {} threads", i + 1, builds.size(), pool.threads()));
    builds[i].wait();
  }
}

}  // namespace hone
