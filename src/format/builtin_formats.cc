#include "format/builtin_formats.h"

#include "format/flashinfer_format.h"
#include "format/legacy_formats.h"
#include "format/robust_kbench_format.h"

namespace hone {

const FormatRegistry& BuiltInFormats() {
  static const FormatRegistry* registry = [] {
    auto* r = new FormatRegistry();
    // The formats with specific layouts first: the legacy layouts' test
    // (any .py in a level folder) their folders could also pass.
    r->Register(FlashInferTraceFormat());
    r->Register(RobustKbenchFormat());
    r->Register(MultiKernelBenchFormat());
    r->Register(NativeTaskFormat());
    r->Register(KernelBenchFormat());
    return r;
  }();
  return *registry;
}

}  // namespace hone
