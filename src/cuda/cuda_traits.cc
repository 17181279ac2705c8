#include "cuda/cuda_traits.h"

namespace hone {

BackendTraits CudaTraits() {
  BackendTraits t;
  t.label = "CUDA";
  t.device_noun = "GPU";
  t.numbered_devices = true;
  t.tasks_as = "cuda";
  t.reference_file = "reference.cu";
  t.device_memory = true;
  t.launch_tracking = true;
  // The runtime's own threads may work between calls; escaped GPU work is
  // caught per call by the device-wide synchronisation instead.
  t.idle_cpu_check = false;
  t.held_calls = true;
  t.event_timing = true;
  // The driver maps far more address space than it uses.
  t.limit_address_space = false;
  // The driver opens device files for every visible GPU: 64 descriptors
  // were too few to load a kernel on a node of two H200s.
  t.open_files = 1024;
  t.sanitizer = true;
  return t;
}

}  // namespace hone
