#include "task/reference_inputs.h"

namespace hone {

size_t ReferenceInputs::ForwardArguments(const Task& task) const { return task.inputs.size(); }

bool ReferenceInputs::HasState(const Task&) const { return false; }

ReferenceMemory ReferenceInputs::Memory(const Task&) const { return {}; }

}  // namespace hone
