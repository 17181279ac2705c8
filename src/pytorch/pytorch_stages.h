// The PyTorch path of one evaluation (run/reference_source.h: PyTorchPath):
// the oracle as its reference (pytorch/oracle_reference.h), a ModelNew
// candidate's stages (pytorch/compat_stages.h), the task's baselines
// (pytorch/baseline_stage.h) and the timing policy beyond the timing stage
// (pytorch/pytorch_timing.h), joined for the evaluator, which reaches them
// only through that interface: the process's entry point hands it
// OpenPyTorchStages (EvaluatorEnv::open_pytorch_path), so the pipeline
// below names none of this folder.
//
// Borrows the evaluation's state and pieces (PyTorchPathParts); not
// thread-safe. Its sandboxes go when it does: the timing policy's spares,
// then the baselines'.
#pragma once

#include <memory>

#include "run/reference_source.h"

namespace hone {

Result<std::unique_ptr<PyTorchPath>> OpenPyTorchStages(const PyTorchPathParts& parts);

}  // namespace hone
