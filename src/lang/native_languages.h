// hone's native languages: C++20 for the CPU backend and CUDA C++ for the
// CUDA backend, both written to the candidate contract (include/hone/
// kernel.h) and built into a library the sandbox loads.
#pragma once

#include "lang/language.h"

namespace hone {

Language CppLanguage();
Language CudaLanguage();

}  // namespace hone
