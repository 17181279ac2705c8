// What a zygote refuses to fork for (sandbox/zygote.h), each refusal in words
// a worker can pass on.
#include "sandbox/zygote.h"

#include <gtest/gtest.h>

namespace hone::sandbox {
namespace {

const std::vector<std::string> kOneThread = {"hone-sandbox"};

TEST(ZygoteTest, AWellFormedRequestToAOneThreadZygoteIsServed) {
  EXPECT_EQ(ForkRefusal({"/tmp/scratch"}, 4, kOneThread, false), "");
}

TEST(ZygoteTest, ARequestMustNameOneAbsoluteFolderAndCarryFourDescriptors) {
  EXPECT_NE(ForkRefusal({}, 4, kOneThread, false).find("absolute path"), std::string::npos);
  EXPECT_NE(ForkRefusal({"scratch"}, 4, kOneThread, false).find("absolute path"),
            std::string::npos);
  EXPECT_NE(ForkRefusal({"/a", "/b"}, 4, kOneThread, false).find("absolute path"),
            std::string::npos);
  EXPECT_EQ(ForkRefusal({"/a"}, 3, kOneThread, false), "a fork request carries four descriptors");
}

// As seen on an H200: importing torch.utils.cpp_extension started the CUDA
// driver's thread in the zygote.
TEST(ZygoteTest, ASecondThreadIsRefusedByName) {
  EXPECT_EQ(ForkRefusal({"/a"}, 4, {"hone-sandbox", "cuda00001400006"}, true),
            "the zygote has 2 threads (hone-sandbox, cuda00001400006): a fork copies one thread "
            "and any lock another holds");
}

TEST(ZygoteTest, AStartedCudaDriverIsRefusedWithOneThread) {
  EXPECT_EQ(ForkRefusal({"/a"}, 4, kOneThread, true),
            "CUDA has started in the zygote: a fork would share its driver state");
}

}  // namespace
}  // namespace hone::sandbox
