// hone's first two formats behind the seam (format/task_format.h),
// unchanged in behaviour: native task folders (task.toml with a C++/CUDA
// reference, task/task_loader.h) and KernelBench problem files (a .py with
// Model, get_inputs and get_init_inputs, loaded by the oracle). Their suites
// share one layout (task/suite.h): level folders of .py problems and native
// task folders, side by side.
#pragma once

#include <memory>

#include "format/task_format.h"

namespace hone {

std::unique_ptr<TaskFormat> NativeTaskFormat();
std::unique_ptr<TaskFormat> KernelBenchFormat();

}  // namespace hone
