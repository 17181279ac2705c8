#include "run/reference_source.h"

#include <algorithm>

namespace hone {

void FreshRep::Reset(TrustedStore& store) {
  for (const Ids* ids : {&inputs, &expected, &actual})
    for (auto id : *ids)
      if (std::find(borrowed.begin(), borrowed.end(), id) == borrowed.end()) store.Release(id);
  inputs.clear();
  expected.clear();
  actual.clear();
  borrowed.clear();
  rep = -1;
  reference_ran = false;
}

Status ReferenceSource::CallTimed(int, const Ids&, uint32_t, uint64_t, CallOutcome*) {
  return Status::Internal("this reference is not timed beside the candidate");
}

Ids ReferenceSource::CaptureOutputs(int) { return {}; }

}  // namespace hone
