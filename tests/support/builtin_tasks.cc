#include "support/builtin_tasks.h"

#include "run/backend_registry.h"
#include "session/eval_context.h"
#include "task/task_loader.h"

namespace hone::testing {

Result<Task> LoadBuiltInTask(const std::filesystem::path& path) {
  return LoadNativeTask(path, TaskDevicesOf(BuiltInBackends()));
}

}  // namespace hone::testing
