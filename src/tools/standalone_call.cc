#include "tools/standalone_call.h"

#include "tools/cuda_tools.h"

namespace hone {

std::vector<std::string> StandaloneCommand(const StandaloneCall& call) {
  std::vector<std::string> argv = {call.sandbox.string(),
                                   "--cuda-pci",
                                   call.pci_bus_id,
                                   "--library",
                                   call.library.string(),
                                   "--library-dir",
                                   call.library.parent_path().string(),
                                   "--scratch",
                                   call.scratch.string()};
  argv.insert(argv.end(), call.confinement.begin(), call.confinement.end());
  if (call.compat) argv.push_back("--compat");
  for (const std::string& t : call.tensors) {
    argv.push_back("--standalone-tensor");
    argv.push_back(t);
  }
  return argv;
}

std::vector<std::string> StandaloneEnvironment(const StandaloneCall& call) {
  std::vector<std::string> argv = CleanToolEnvironment(call.scratch);
  argv.insert(argv.end(), call.env.begin(), call.env.end());
  return argv;
}

}  // namespace hone
