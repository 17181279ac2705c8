// --devices and --lanes (cli/device_list.h): lists, ranges and "all" against
// the GPUs present, and the refusals that name the flag.
#include "cli/device_list.h"

#include <gtest/gtest.h>

namespace hone::cli {
namespace {

using V = std::vector<int>;

TEST(DeviceList, ListsRangesAndAll) {
  EXPECT_EQ(*ParseDeviceList("all", 4), (V{0, 1, 2, 3}));
  EXPECT_EQ(*ParseDeviceList("1", 4), (V{1}));
  EXPECT_EQ(*ParseDeviceList("2,0", 4), (V{2, 0}));
  EXPECT_EQ(*ParseDeviceList("0-2", 4), (V{0, 1, 2}));
  EXPECT_EQ(*ParseDeviceList("3,0-1", 4), (V{3, 0, 1}));
  EXPECT_EQ(*ParseDeviceList("1-1", 2), (V{1}));
}

TEST(DeviceList, RefusalsNameTheFlag) {
  struct Case {
    const char* spec;
    int available;
    const char* says;
  };
  for (const Case& c :
       std::vector<Case>{{"", 2, "is not a device index"},
                         {"0,", 2, "is not a device index"},
                         {"a", 2, "'a' in 'a' is not a device index"},
                         {"-1", 2, "is not a device index"},
                         {"1.5", 2, "is not a device index"},
                         {"2-1", 4, "the range 2-1 runs backwards"},
                         {"0,0", 2, "device 0 is named twice"},
                         {"0-1,1", 2, "device 1 is named twice"},
                         {"2", 2, "GPU 2 is not present (this machine has 2 GPUs: 0-1)"},
                         {"0", 0, "GPU 0 is not present (no GPU is present)"},
                         {"1", 1, "this machine has 1 GPU: 0"},
                         {"all", 0, "--devices all: no GPU is present"}}) {
    auto r = ParseDeviceList(c.spec, c.available);
    ASSERT_FALSE(r.ok()) << c.spec;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << c.spec;
    EXPECT_EQ(r.status().message().rfind("--devices", 0), 0u) << r.status().message();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
  }
}

TEST(LaneDevices, OneLanePerDeviceOrCpuLane) {
  EXPECT_EQ(*LaneDevices("cuda", 3, "", 0, 0), (V{3}));  // --device alone
  EXPECT_EQ(*LaneDevices("cuda", 3, "0,1", 0, 2), (V{0, 1}));
  EXPECT_EQ(*LaneDevices("cpu", 0, "", 0, 0), (V{0}));
  EXPECT_EQ(*LaneDevices("cpu", 0, "", 3, 0), (V{0, 0, 0}));
}

TEST(LaneDevices, Refusals) {
  auto cpu_devices = LaneDevices("cpu", 0, "0,1", 0, 2);
  ASSERT_FALSE(cpu_devices.ok());
  EXPECT_NE(cpu_devices.status().message().find("--devices: the cpu backend has no devices"),
            std::string::npos);
  EXPECT_NE(cpu_devices.status().message().find("--lanes N"), std::string::npos);
  auto cuda_lanes = LaneDevices("cuda", 0, "", 2, 2);
  ASSERT_FALSE(cuda_lanes.ok());
  EXPECT_EQ(cuda_lanes.status().message().rfind("--lanes:", 0), 0u);
  auto both = LaneDevices("cuda", 0, "all", 2, 2);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("give one, not both"), std::string::npos);
  EXPECT_FALSE(LaneDevices("cpu", 0, "", -1, 0).ok());
}

TEST(LaneName, DeviceOrCpuLane) {
  EXPECT_EQ(LaneName("cuda", 1, 0, 2), "cuda:1");
  EXPECT_EQ(LaneName("cpu", 0, 0, 1), "cpu");
  EXPECT_EQ(LaneName("cpu", 0, 2, 3), "cpu#2");
}

}  // namespace
}  // namespace hone::cli
