#include "format/legacy_formats.h"

#include "task/task_loader.h"

namespace hone {
namespace {

class Native : public TaskFormat {
 public:
  std::string name() const override { return "native"; }
  std::string describe() const override { return "a native task folder (task.toml)"; }
  bool ClaimsProblem(const std::filesystem::path& path) const override {
    return IsNativeTaskDir(path) ||
           (path.filename() == "task.toml" && IsNativeTaskDir(path.parent_path()));
  }
  bool ClaimsSuite(const std::filesystem::path& path) const override {
    return HoldsNativeOrPyTorchTasks(path);
  }
  Result<std::vector<SuiteEntry>> Discover(const std::filesystem::path& suite,
                                           const SuiteLayout& layout) const override {
    return DiscoverSuite(suite, layout);
  }
};

class KernelBench : public TaskFormat {
 public:
  std::string name() const override { return "kernelbench"; }
  std::string describe() const override {
    return "a KernelBench problem file (.py with Model, get_inputs, get_init_inputs)";
  }
  bool ClaimsProblem(const std::filesystem::path& path) const override {
    std::error_code ec;
    return path.extension() == ".py" && std::filesystem::is_regular_file(path, ec);
  }
  bool ClaimsSuite(const std::filesystem::path& path) const override {
    return HoldsNativeOrPyTorchTasks(path);
  }
  Result<std::vector<SuiteEntry>> Discover(const std::filesystem::path& suite,
                                           const SuiteLayout& layout) const override {
    return DiscoverSuite(suite, layout);
  }
};

}  // namespace

std::unique_ptr<TaskFormat> NativeTaskFormat() { return std::make_unique<Native>(); }
std::unique_ptr<TaskFormat> KernelBenchFormat() { return std::make_unique<KernelBench>(); }

}  // namespace hone
