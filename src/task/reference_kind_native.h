// The native reference kind (task/reference_kind.h): a task folder's
// reference.cpp (CPU) or reference.cu (CUDA), written to the candidate
// contract, built by hone and run in a sandbox of its own beside the
// candidate. Claims every task no other kind claims. Stateless; any thread.
#pragma once

#include <memory>

#include "task/reference_kind.h"

namespace hone {

std::unique_ptr<ReferenceKind> NativeReferenceKind();

}  // namespace hone
