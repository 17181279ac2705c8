// hone's allocator policy (core/malloc_policy.h): buffers of an evaluation's
// sizes come from the heap, not from mappings of their own that each later
// allocation faults in again.
#include "core/malloc_policy.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>

namespace hone {
namespace {

TEST(MallocPolicyTest, A100MiBBufferIsNotMappedOnItsOwn) {
  KeepFreedMemoryForReuse();
  const size_t before = mallinfo2().hblkhd;
  // Above glibc's own largest mmap threshold (32 MiB), below hone's 256 MiB.
  auto* p = static_cast<volatile char*>(std::malloc(size_t{100} << 20));
  ASSERT_NE(p, nullptr);
  p[0] = 1;
  const size_t mapped = mallinfo2().hblkhd - before;
  std::free(const_cast<char*>(p));
  EXPECT_EQ(mapped, 0u) << "the buffer had a mapping of its own";
}

}  // namespace
}  // namespace hone
