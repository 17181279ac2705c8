#include "measure/sharing_watch.h"

#include <algorithm>

namespace hone {

void SharingWatch::ReadNeighbours() {
  std::optional<DeviceNeighbours> now = device_.neighbours ? device_.neighbours() : std::nullopt;
  if (!now) return;
  DeviceNeighbours& seen = sharing_.neighbours;
  seen.known = seen.known || now->known;
  if (now->others >= seen.others) {
    seen.others = now->others;
    seen.others_bytes = std::max(seen.others_bytes, now->others_bytes);
  }
}

SharingWatch::SharingWatch(Device device) : device_(std::move(device)) {
  if (device_.copy_bandwidth_gbs > 0)
    sharing_.idle_copy_seconds =
        2.0 * static_cast<double>(kProbeCopyBytes) / (device_.copy_bandwidth_gbs * 1e9);
}

void SharingWatch::BesideCall() {
  if (shared()) Probe();
}

void SharingWatch::Probe() {
  if (!device_.probe) return;
  if (std::optional<SharingProbe> p = device_.probe()) sharing_.probes.push_back(*p);
}

const DeviceSharing& SharingWatch::Evidence(int min_probes) {
  ReadNeighbours();
  // A backend that makes no probes gives none however often asked.
  for (int tries = 0;
       shared() && static_cast<int>(sharing_.probes.size()) < min_probes && tries < 2 * min_probes;
       ++tries)
    Probe();
  return sharing_;
}

}  // namespace hone
