#include "lang/triton_kernel_store.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/fs.h"

namespace hone {
namespace {

constexpr const char* kKey = "HQ4DQAUJBF3DZ2RZ7VQNCJVNVUPLF3DOEOBDMNNS6P2SF6NF7LAQ";
constexpr const char* kOtherKey = "ZZ4DQAUJBF3DZ2RZ7VQNCJVNVUPLF3DOEOBDMNNS6P2SF6NF7LAQ";

class TritonKernelStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = MakeTempDir(fs::temp_directory_path(), "hone-kernel-store");
    ASSERT_TRUE(d.ok()) << d.status().message();
    dir_ = *d;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static void Write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  // A kernel folder as Triton leaves it in a sandbox's private cache.
  fs::path Kernel(const std::string& key, const std::string& name = "relu_kernel") {
    const fs::path k = dir_ / "private" / key;
    Write(k / (name + ".cubin"), "cubin");
    Write(k / (name + ".ptx"), "ptx");
    Write(k / (name + ".json"), "{}");
    Write(k / ("__grp__" + name + ".json"), R"({"child_paths": {}})");
    return k;
  }
  fs::path root() const { return dir_ / "store"; }

  fs::path dir_;
};

TEST_F(TritonKernelStoreTest, AFilesKernelsAreKeptForThatFileOnly) {
  Kernel(kKey);
  TritonKernelStore store(root(), {});
  const fs::path first = store.Open("print('a triton file')");
  ASSERT_FALSE(first.empty());
  EXPECT_TRUE(fs::is_empty(first));
  EXPECT_EQ(store.Keep(dir_ / "private"), 1);
  EXPECT_TRUE(fs::exists(first / kKey / "relu_kernel.cubin"));
  EXPECT_EQ(store.Keep(dir_ / "private"), 0) << "kept once";

  TritonKernelStore later(root(), {});
  EXPECT_EQ(later.Open("print('a triton file')"), first);
  const fs::path other = later.Open("print('another file')");
  EXPECT_NE(other, first);
  EXPECT_TRUE(fs::is_empty(other)) << "another file reads nothing the first compiled";
}

TEST_F(TritonKernelStoreTest, OnlyWholeKernelFoldersOfTritonsOwnFilesAreKept) {
  const fs::path planted = Kernel(kKey);
  Write(planted / "outputs.bin", "what the file computed");
  const fs::path launcher = Kernel(kOtherKey, "k");
  Write(launcher / "__triton_launcher.cpython-311-x86_64-linux-gnu.so", "code");
  fs::path incomplete = Kernel("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "k2");
  fs::remove(incomplete / "__grp__k2.json");
  Kernel("not-a-key");
  fs::path linked = Kernel("BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "k3");
  fs::remove(linked / "k3.cubin");
  fs::create_symlink("/etc/passwd", linked / "k3.cubin");
  Write(dir_ / "private" / "stray.json", "{}");

  TritonKernelStore store(root(), {});
  const fs::path entry = store.Open("source");
  EXPECT_EQ(store.Keep(dir_ / "private"), 0);
  EXPECT_TRUE(fs::is_empty(entry));

  // Nor a private cache that is a link to some other folder.
  fs::remove_all(dir_ / "private");
  Kernel(kKey);
  fs::rename(dir_ / "private", dir_ / "elsewhere");
  fs::create_directory_symlink(dir_ / "elsewhere", dir_ / "private");
  EXPECT_EQ(store.Keep(dir_ / "private"), 0);
  EXPECT_TRUE(fs::is_empty(entry));
}

TEST_F(TritonKernelStoreTest, AFilesEntryHoldsAtMostItsShare) {
  const fs::path big = Kernel(kKey);
  Write(big / "relu_kernel.ptx", std::string(TritonKernelStore::kMaxEntryBytes, 'p'));
  Kernel(kOtherKey, "small");
  TritonKernelStore store(root(), {});
  const fs::path entry = store.Open("source");
  EXPECT_EQ(store.Keep(dir_ / "private"), 1);
  EXPECT_FALSE(fs::exists(entry / kKey));
  EXPECT_TRUE(fs::exists(entry / kOtherKey / "small.cubin"));
}

// As root, sandboxes read a copy beside their scratch folders: what an
// evaluation keeps reaches its later sandboxes there too, and a later
// evaluation's copy holds what earlier ones kept.
TEST_F(TritonKernelStoreTest, SandboxesThatCannotReadTheStoreReadACopy) {
  Kernel(kKey);
  TritonKernelStore store(root(), dir_ / "view");
  const fs::path seen = store.Open("source");
  EXPECT_EQ(seen.parent_path(), dir_ / "view");
  EXPECT_EQ(store.Keep(dir_ / "private"), 1);
  EXPECT_TRUE(fs::exists(seen / kKey / "relu_kernel.cubin"));
  EXPECT_TRUE(fs::exists(root() / seen.filename() / kKey / "relu_kernel.cubin"));

  fs::remove_all(dir_ / "view");
  TritonKernelStore later(root(), dir_ / "view");
  EXPECT_TRUE(fs::exists(later.Open("source") / kKey / "relu_kernel.json"));
}

TEST_F(TritonKernelStoreTest, TheLeastRecentlyOpenedEntriesGoFirst) {
  TritonKernelStore store(root(), {});
  std::vector<fs::path> entries;
  int minutes_ago = 3;
  for (const char* source : {"old", "middle", "new"}) {
    fs::remove_all(dir_ / "private");
    Kernel(kKey);
    entries.push_back(store.Open(source));
    ASSERT_EQ(store.Keep(dir_ / "private"), 1);
    fs::last_write_time(entries.back(),
                        fs::file_time_type::clock::now() - std::chrono::minutes(minutes_ago--));
  }
  store.Trim(70);  // three entries of 30 bytes: the oldest goes
  EXPECT_FALSE(fs::exists(entries[0]));
  EXPECT_TRUE(fs::exists(entries[1] / kKey));
  EXPECT_TRUE(fs::exists(entries[2] / kKey));
}

}  // namespace
}  // namespace hone
