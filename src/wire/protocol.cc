#include "wire/protocol.h"

namespace hone::wire {

std::string FeatureNames(uint64_t f) {
  std::string out;
  auto add = [&](uint64_t bit, const char* name) {
    if (f & bit) out += (out.empty() ? "" : ",") + std::string(name);
  };
  add(kFeatureSeccomp, "seccomp");
  add(kFeatureLandlock, "landlock");
  add(kFeatureLandlockNet, "landlock-net");
  add(kFeatureNetNamespace, "netns");
  add(kFeatureDroppedPrivileges, "nobody");
  return out;
}

}  // namespace hone::wire
