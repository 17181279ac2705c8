#include "build/build_pool.h"

namespace hone {

BuildPool::BuildPool(Builder& builder, int threads) : builder_(builder) {
  int n = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  for (int i = 0; i < std::max(1, n); ++i) workers_.emplace_back([this] { Work(); });
}

BuildPool::~BuildPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
}

std::future<Result<BuildResult>> BuildPool::Submit(std::filesystem::path source) {
  std::packaged_task<Result<BuildResult>()> task(
      [this, source = std::move(source)] { return builder_.Build(source); });
  auto future = task.get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
  return future;
}

void BuildPool::Work() {
  while (true) {
    std::packaged_task<Result<BuildResult>()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace hone
