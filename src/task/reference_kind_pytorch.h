// The PyTorch reference kind (task/reference_kind.h): a KernelBench-format
// module (Model, get_inputs, get_init_inputs) that the oracle loads and runs
// (task/oracle_service.h); what it knows of the task is Task::pytorch.
// Claims the tasks that have it. Stateless; any thread.
#pragma once

#include <memory>

#include "task/reference_kind.h"

namespace hone {

std::unique_ptr<ReferenceKind> PyTorchReferenceKind();

}  // namespace hone
