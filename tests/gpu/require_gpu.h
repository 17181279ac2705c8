// REQUIRE_GPU(): the first statement of a GPU test that needs only a device
// (no sandbox or oracle): skips it, saying why, on a machine without one.
#pragma once

#include <gtest/gtest.h>

#include "cuda/gpu.h"

#define REQUIRE_GPU()                                                                           \
  do {                                                                                          \
    if (hone::GpuCount() == 0) GTEST_SKIP() << "no CUDA GPU on this machine: GPU test skipped"; \
  } while (0)
