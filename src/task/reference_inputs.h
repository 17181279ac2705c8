// A reference kind's inputs and memory (task/reference_kind.h): which of a
// task's inputs are drawn per value set and which are the reference's own
// state, and what the reference holds on the device beyond them. Read by
// the memory plan (run/memory_plan.h) and the baselines (pytorch/
// baseline_stage.h).
//
// The defaults are a program's: every input a forward argument, no state,
// nothing held beyond a value set. Owned by its kind, which lives for the
// whole process; const and thread-safe. Nothing here fails; asking about a
// task the kind does not claim is a programmer error.
#pragma once

#include <cstddef>
#include <cstdint>

#include "task/task.h"

namespace hone {

// What the reference holds on the device beyond the tensors of a value set
// (bytes; run/memory_plan.h).
struct ReferenceMemory {
  int64_t forward_peak = 0;  // one forward beyond its inputs: outputs and intermediates
  int64_t draw_peak = 0;     // the most drawing one value set takes
  int64_t model = 0;         // the model's state
};

class ReferenceInputs {
 public:
  virtual ~ReferenceInputs() = default;

  // How many of the task's inputs are forward arguments, drawn per value
  // set (the rest are model state); all of them by default.
  virtual size_t ForwardArguments(const Task& task) const;
  // Whether the task's inputs include model state (parameters, buffers)
  // after the forward arguments; none by default.
  virtual bool HasState(const Task& task) const;
  // What the reference holds beyond a value set's tensors; nothing by default.
  virtual ReferenceMemory Memory(const Task& task) const;
};

}  // namespace hone
