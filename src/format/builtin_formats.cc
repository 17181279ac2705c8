#include "format/builtin_formats.h"

#include "format/flashinfer_format.h"
#include "format/legacy_formats.h"

namespace hone {

const FormatRegistry& BuiltInFormats() {
  static const FormatRegistry* registry = [] {
    auto* r = new FormatRegistry();
    // A FlashInfer-Trace dataset is recognised before the legacy layouts,
    // whose test (any .py in a level folder) it could also pass.
    r->Register(FlashInferTraceFormat());
    r->Register(NativeTaskFormat());
    r->Register(KernelBenchFormat());
    return r;
  }();
  return *registry;
}

}  // namespace hone
