// How much of each kind of buffer one evaluation keeps, decided before it
// allocates anything, from the sizes of the task's tensors and the memory
// free on the device.
//
// A full-size KernelBench problem has 6.4 GB tensors: three rotating buffer
// slots, six resident timing sets and a float64 reference beside the oracle's
// own copies do not fit an 80 GB GPU. The plan shrinks what can shrink, in
// this order, until the evaluation's peak fits: the timing pool (6 sets
// down to 2, one per value distribution, so a checked call still looks like
// an unchecked one), the buffer slots rotated through during timing (3 down
// to 1), the float64 precision reference (every value set, then none). When
// even that minimum does not fit, Fits() is false and Explain() names the
// numbers, so the evaluation fails in seconds instead of running out of
// memory minutes later.
//
// DemandOf and PlanMemory are pure arithmetic over byte counts: no
// allocation, no device calls. Thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "run/buffer_layout.h"
#include "task/reference_kind.h"
#include "task/task.h"

namespace hone {

// What each process with a CUDA context costs beyond its tensors: the
// context, a sandbox's L2 flush buffer, torch's handles and workspaces.
inline constexpr int64_t kDeviceBytesPerProcess = int64_t{1} << 30;

// What the evaluation will hold, per tensor kind (bytes).
struct MemoryDemand {
  int64_t inputs = 0;       // every input of one value set (forward arguments and parameters)
  int64_t outputs = 0;      // every output of one value set
  int64_t outputs_f64 = 0;  // the outputs widened to float64 (the precision reference)
  // The candidate arena's canaries (process/arena.h): after each buffer of one
  // slot, and once around all of them.
  int64_t guards_per_set = 0;
  int64_t guards_fixed = 0;
  // The inputs drawn per set (ReferenceInputs::ForwardArguments; a PyTorch
  // task's oracle draws its forward arguments, not its parameters).
  int64_t forward_arguments = 0;
  // What the reference holds (ReferenceInputs::Memory; a PyTorch task's
  // oracle measured them): one forward beyond its inputs (outputs and
  // intermediates), the model's state, and the most drawing one value set
  // takes (its inputs and get_inputs()'s temporaries).
  int64_t forward_peak = 0;
  int64_t model = 0;
  int64_t draw_peak = 0;
  // Where the reference runs, which decides its share of the peak: a
  // sandbox with an arena of its own, or the oracle generating value sets
  // on the device and keeping a timing pool.
  ReferenceSite site = ReferenceSite::kSandbox;
  bool compat = false;      // the candidate runs the model in torch in its sandbox
  int processes = 2;        // processes holding a device context (worker, sandbox, oracle...)
  int64_t per_process = 0;  // each one's fixed cost (a CUDA context, the flush buffer)

  // One more sandbox process running the model (another of the candidate's
  // or a baseline's), its arena aside: its fixed cost, the model and its forward.
  int64_t ProcessBytes() const { return per_process + model + forward_peak; }
  // The oracle making one value set: drawing its inputs, then its forward.
  int64_t OracleSetBytes() const { return std::max(draw_peak, forward_arguments + forward_peak); }
};

// What an evaluation of `task` on `cases` holds: the tensors of its largest
// case, the candidate arena's canaries, what the task's reference kind holds
// (task/reference_kind.h: a PyTorch task's model and forward), and
// (`device`: the backend's memory is a device's) a device context per
// process. `compat`: the candidate runs the model in torch in its sandbox.
MemoryDemand DemandOf(const Task& task, const std::vector<CaseShapes>& cases, bool device,
                      bool compat);

struct MemoryPlan {
  int input_sets = 3;  // buffer slots in the candidate's arena, rotated during timing
  int pool_sets = 6;   // the oracle's timing pool sets kept resident
  bool ref64 = true;   // the float64 precision reference is computed
  int64_t peak = 0;    // the planned peak, bytes
  int64_t free = 0;    // what was free when planned
  bool fits = true;
  // The verify stage keeps the store's and the oracle's cached memory from
  // one value set to the next (no re-allocation of gigabytes per set: about
  // 15 ms per 6.4 GB on an H200) when that does not raise the peak, which
  // the timing pool sets.
  bool verify_keeps_caches = false;
  std::vector<std::string> shrunk;  // what was reduced, in words, for the verdict's notes
  // "needs 71.2 GB at least (...), 60.0 GB free": the numbers behind !fits.
  std::string Explain() const;
  std::string breakdown;  // the peak's parts at the chosen settings
};

// The largest settings (up to `max_input_sets` slots and `max_pool_sets`
// pool sets) whose peak fits in `free` bytes; `free` <= 0 means unknown (no
// limit). The peak is the larger of the verification and timing phases.
MemoryPlan PlanMemory(const MemoryDemand& d, int64_t free, int max_input_sets = 3,
                      int max_pool_sets = 6);

// MemAvailable of /proc/meminfo in bytes; 0 when unknown.
int64_t AvailableHostMemory();

}  // namespace hone
