// A native task loaded as `hone` loads one: for the built-in backends'
// devices (session/eval_context.h's BuiltInBackends(), the CPU's and
// CUDA's), for tests that build no registry of their own. The task loader
// itself takes the devices from its caller (task/task_loader.h) and names
// none. Failures are the loader's Status.
#pragma once

#include <filesystem>

#include "task/task.h"

namespace hone::testing {

Result<Task> LoadBuiltInTask(const std::filesystem::path& path);

}  // namespace hone::testing
