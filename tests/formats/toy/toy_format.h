// A task format that exists only in the tests, to show that a format is one
// object behind the seam (format/task_format.h): a ".toy" file of a few
// lines,
//
//   name relu_scale
//   input x float32 64 128
//   output relu(x) * 2
//
// (a name, inputs with dtype and sizes, and the output as a PyTorch
// expression over them), loaded as the KernelBench file it writes; a
// suite is a folder of .toy files, each one's solutions in a folder named
// after it. Nothing outside tests/formats/toy names it.
#pragma once

#include <filesystem>
#include <memory>

#include "format/task_format.h"

namespace hone::testing {

inline constexpr const char* kToyFormat = "toy";

std::unique_ptr<TaskFormat> ToyFormat();
// tests/formats/toy in the source tree.
std::filesystem::path ToyDir();

}  // namespace hone::testing
