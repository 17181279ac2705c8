#include "core/hash.h"

#include <xxhash.h>

#include <cstdint>
#include <cstdio>

namespace hone {

std::string ContentHash(std::initializer_list<std::string_view> parts) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  for (std::string_view p : parts) {
    uint64_t len = p.size();
    XXH3_128bits_update(state, &len, sizeof len);
    XXH3_128bits_update(state, p.data(), p.size());
  }
  XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

}  // namespace hone
