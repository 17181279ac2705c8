// Runs builds in parallel on a fixed set of threads (default: one per core),
// so a search can compile many candidates while others are evaluated.
// Thread-safe. Destruction waits for the builds already submitted.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "build/builder.h"

namespace hone {

class BuildPool {
 public:
  explicit BuildPool(Builder& builder, int threads = 0);
  ~BuildPool();

  std::future<Result<BuildResult>> Submit(std::filesystem::path source);
  int threads() const { return static_cast<int>(workers_.size()); }

 private:
  void Work();
  Builder& builder_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<Result<BuildResult>()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace hone
