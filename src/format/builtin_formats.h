// The task formats this hone reads, registered in the one place formats are
// registered (format/task_format.h): native task folders, KernelBench
// problem files, FlashInfer-Trace definitions and datasets, robust-kbench
// tasks and MultiKernelBench folders. Built once;
// read-only after, so any thread may use it.
#pragma once

#include "format/task_format.h"

namespace hone {

const FormatRegistry& BuiltInFormats();

}  // namespace hone
