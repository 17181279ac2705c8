// robust-kbench (Sakana AI) and MultiKernelBench behind the task-format
// seam (format/task_format.h).
//
// robust-kbench: a task is a folder with func_forward.py (a functional
// `forward_fn`, a `Model` whose keyword-argument constructor builds the
// weights and whose forward calls `fn=forward_fn` with them, and
// `get_inputs(**kwargs)`) and config_forward.json (single_ and multi_ lists
// of input, init and shared configurations). Its parts are the
// configurations, single and multi (each init x input x shared; shared keys
// go to both), each written as a KernelBench file whose Model is the task's
// built with that configuration. A candidate is a .cu or .cpp file whose
// PYBIND11_MODULE defines `forward` taking forward_fn's arguments; it runs
// as a ModelNew that builds it with torch.utils.cpp_extension.load and
// calls the task's Model with fn=forward. A suite is a folder of task
// folders (or of level folders of them, as tasks/kernelbench/level_1/);
// a task's candidates are the .cu/.cpp/.py files of its solutions/ folder.
//
// MultiKernelBench: KernelBench-format files under reference/<category>/;
// a suite is the folder holding reference/, its candidates under
// candidates/<category>/<op>/ as for KernelBench, each category a level.
#pragma once

#include <memory>

#include "format/task_format.h"

namespace hone {

std::unique_ptr<TaskFormat> RobustKbenchFormat();
std::unique_ptr<TaskFormat> MultiKernelBenchFormat();

}  // namespace hone
