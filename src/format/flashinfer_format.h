// FlashInfer-Trace behind the task-format seam (format/task_format.h).
//
// A problem is a definition file (.json with axes, inputs, outputs and a
// reference); its parts are its workloads, found where the format's
// layouts put them: DATASET/workloads/**/<name>.jsonl for a definition
// under DATASET/definitions/ (FlashInfer-Bench), or workload.jsonl beside
// definition.json (SOL-ExecBench's problem folders), or the file
// PartOptions::workloads names. Each part is the KernelBench-format file
// format/flashinfer_codegen.h writes under the cache.
//
// A candidate is a solution file (.json with spec and sources) for that
// definition, written out as a ModelNew (python, triton; cuda and cpp with
// the torch or tvm-ffi binding) or as a native file through hone's C
// contract; any other file (a ModelNew written against the generated
// problem) is taken as it is.
//
// A suite is a dataset folder with definitions/ (and workloads/,
// solutions/ anywhere below: the loader searches recursively, as the
// format's own does): one entry per (definition, workload), its category
// the op_type, its solutions those naming the definition. A malformed
// definition or solution is an entry whose task is the file itself, so that
// the bench reports it (malformed) and goes on.
#pragma once

#include <memory>

#include "format/task_format.h"

namespace hone {

std::unique_ptr<TaskFormat> FlashInferTraceFormat();

}  // namespace hone
