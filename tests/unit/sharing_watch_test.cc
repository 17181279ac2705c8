// The evaluation's record of a shared device (src/measure/sharing_watch.h),
// over a simulated co-tenant: no probe while the device is hone's alone, a
// probe beside each timed call once a neighbour is seen, and enough probes
// made on demand before a judgement.
#include "measure/sharing_watch.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

struct SimulatedDevice {
  int others = 0;
  int probes = 0;
  SharingWatch::Device Device() {
    return {[this]() -> std::optional<DeviceNeighbours> {
              DeviceNeighbours n;
              n.known = true;
              n.others = others;
              n.others_bytes = others * 1'000'000'000LL;
              return n;
            },
            [this]() -> std::optional<SharingProbe> {
              ++probes;
              return SharingProbe{2.4e-3, 20e-6};
            },
            3200};
  }
};

TEST(SharingWatchTest, AloneNothingIsProbed) {
  SimulatedDevice d;
  SharingWatch w(d.Device());
  w.ReadNeighbours();
  for (int i = 0; i < 5; ++i) w.BesideCall();
  EXPECT_FALSE(w.Evidence().shared());
  EXPECT_EQ(d.probes, 0);
}

TEST(SharingWatchTest, ANeighbourSeenOnceCountsForTheEvaluation) {
  SimulatedDevice d;
  SharingWatch w(d.Device());
  d.others = 1;
  w.ReadNeighbours();
  for (int i = 0; i < 3; ++i) w.BesideCall();
  EXPECT_EQ(d.probes, 3);
  d.others = 0;  // it went away: what the timing met stays
  const DeviceSharing& s = w.Evidence(10);
  EXPECT_TRUE(s.shared());
  EXPECT_EQ(s.neighbours.others_bytes, 1'000'000'000LL);
  EXPECT_EQ(s.probes.size(), 10u) << "probes made up to the minimum before a judgement";
  EXPECT_NEAR(s.idle_copy_seconds, 2.0 * kProbeCopyBytes / 3200e9, 1e-12);
  EXPECT_NEAR(s.WaitMedian(), 2.4e-3, 1e-12);
}

TEST(SharingWatchTest, ADeviceThatCannotProbeGivesNone) {
  SharingWatch w({[] {
                    return std::optional<DeviceNeighbours>(DeviceNeighbours{true, 2, 0});
                  },
                  [] { return std::optional<SharingProbe>(); }, 0});
  const DeviceSharing& s = w.Evidence();
  EXPECT_TRUE(s.shared());
  EXPECT_TRUE(s.probes.empty());
  EXPECT_EQ(WaitAllowance(s).within, 0) << "no evidence, no allowance";
  SharingWatch none({});
  EXPECT_FALSE(none.Evidence().shared());
}

}  // namespace
}  // namespace hone
