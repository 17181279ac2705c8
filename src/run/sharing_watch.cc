#include "run/sharing_watch.h"

#include <algorithm>

namespace hone {

void SharingWatch::ReadNeighbours() {
  std::optional<DeviceNeighbours> now = backend_.Neighbours();
  if (!now) return;
  DeviceNeighbours& seen = sharing_.neighbours;
  seen.known = seen.known || now->known;
  if (now->others >= seen.others) {
    seen.others = now->others;
    seen.others_bytes = std::max(seen.others_bytes, now->others_bytes);
  }
  if (sharing_.idle_copy_seconds <= 0 && backend_.machine().copy_bandwidth_gbs > 0)
    sharing_.idle_copy_seconds =
        2.0 * static_cast<double>(kProbeCopyBytes) / (backend_.machine().copy_bandwidth_gbs * 1e9);
}

void SharingWatch::BesideCall() {
  if (shared()) Probe();
}

void SharingWatch::Probe() {
  if (std::optional<SharingProbe> p = backend_.ProbeSharing()) sharing_.probes.push_back(*p);
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
