// The test device's trusted store: the worker's private tensors for its
// arenas (run/trusted_store.h), a store of its own that keeps them in worker
// host memory through the host store it wraps and counts its comparisons,
// so that a test sees the verify stage ask this device's store, not the
// CPU's. Every operation follows the host store's contract exactly.
//
// Not thread-safe, as run/trusted_store.h says; the counts are.
#pragma once

#include <memory>

#include "backends/testdev/testdev_counts.h"
#include "run/trusted_store.h"

namespace hone::testing {

std::unique_ptr<TrustedStore> CreateTestDevStore(std::shared_ptr<TestDevCounts> counts);

}  // namespace hone::testing
