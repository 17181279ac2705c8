// What sets the CUDA backend's candidates apart (run/backend.h), as the
// backend and, in a hone built without a CUDA toolkit, the kind that says
// it is missing both carry: built with or without the toolkit (no CUDA
// headers), so that every hone knows what a CUDA device is.
#pragma once

#include "run/backend.h"

namespace hone {

BackendTraits CudaTraits();

}  // namespace hone
