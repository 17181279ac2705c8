// KernelGYM's API, so that Dr. Kernel's verl recipe (its reward client)
// runs against hone unchanged:
//   POST /evaluate {"task_id", "reference_code", "kernel_code", "timeout",
//                   "entry_point", "backend", ...}          -> 200 {"task_id", "status"}
//   GET  /status/{task_id}  -> {"task_id", "status": pending | processing |
//                               completed | failed | cancelled, "error_message"}
//   GET  /results/{task_id} -> {"task_id", "compiled", "correctness", "speedup",
//                               "decoy_kernel", "error_message", "metadata": {...}}
// Every verdict, wrong or right, is "completed" (the client reads correctness
// and speedup); an infra_error is "failed". A hack hone rejects is reported
// as decoy_kernel, which the client scores as reward hacking. Fields hone
// does not use (num_perf_trials, priority, enable_profiling...) are accepted
// and ignored; 429 and 503 carry Retry-After, which the client backs off on.
#pragma once

#include "serve/serve_context.h"

namespace hone {

void RegisterKernelGymShim(httplib::Server& server, ServeContext& ctx);

}  // namespace hone
