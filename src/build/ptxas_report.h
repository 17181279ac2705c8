// What ptxas says about each kernel it compiled (nvcc -Xptxas -v): registers,
// shared memory, stack, spills. Feedback for the search: spills and register
// pressure explain many slow kernels.
#pragma once

#include <string>
#include <vector>

namespace hone {

struct KernelResources {
  std::string name;  // mangled entry function name
  int registers = 0;
  int shared_bytes = 0;
  int stack_bytes = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
};

std::vector<KernelResources> ParsePtxasReport(const std::string& log);
// One line per kernel: "_Z3addPKfPfl: 10 registers, 0 B shared, 0 B stack, no spills".
std::string FormatResources(const std::vector<KernelResources>& kernels);

}  // namespace hone
