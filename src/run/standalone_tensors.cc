#include "run/standalone_tensors.h"

#include <fmt/format.h>

#include "compat/compat_sandbox.h"
#include "core/fs.h"
#include "process/sandbox_process.h"
#include "run/sandbox_launcher.h"

namespace hone {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string t;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d) t += 'x';
    t += std::to_string(shape[d]);
  }
  return t;
}

// "in:0:4096x512" (sandbox/cuda/standalone.h).
std::string Spec(const char* role, const Placement& p) {
  return fmt::format("{}:{}:{}", role, static_cast<int>(p.dtype), ShapeText(p.shape));
}

}  // namespace

Result<std::vector<std::string>> StandaloneTensorSpecs(Arena& arena, const SetLayout& set,
                                                       const std::filesystem::path& scratch) {
  std::vector<std::string> specs;
  for (size_t i = 0; i < set.inputs.size(); ++i) {
    const Placement& p = set.inputs[i];
    std::string bytes(p.bytes, '\0');
    arena.Read(p.offset, bytes.data(), p.bytes);
    std::filesystem::path file = scratch / ("input_" + std::to_string(i) + ".bin");
    HONE_RETURN_IF_ERROR(WriteFileAtomic(file, bytes));
    specs.push_back(fmt::format("{}:{}", Spec("in", p), file.string()));
  }
  for (const Placement& p : set.outputs) specs.push_back(Spec("out", p));
  return specs;
}

Result<StandaloneCall> PrepareStandaloneCall(const RunState& s,
                                             const std::filesystem::path& library,
                                             const std::filesystem::path& scratch) {
  StandaloneCall call;
  call.sandbox = s.backend.sandbox_executable();
  call.library = library;
  call.pci_bus_id = s.cand.arena->pci_bus_id();
  call.scratch = scratch;
  SandboxConfig config = BaseConfig(s.env, s.backend, s.opt);
  if (s.compat) {
    HONE_RETURN_IF_ERROR(AddCompatShim(config, *s.compat_runtime, s.shim_options));
    call.compat = true;
    call.env = config.extra_env;
    call.env.push_back("PYTORCH_NO_CUDA_MEMORY_CACHING=1");
    call.env.push_back("CUDA_MODULE_LOADING=LAZY");
  }
  call.confinement = ConfinementArgs(config);
  HONE_ASSIGN_OR_RETURN(call.tensors,
                        StandaloneTensorSpecs(*s.cand.arena, s.cand.sets[0], scratch));
  return call;
}

}  // namespace hone
