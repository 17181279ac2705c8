#include "mcp/device_queue.h"

#include <chrono>

namespace hone::mcp {

std::optional<DeviceQueue::Turn> DeviceQueue::Acquire(
    const std::string& device, const CancelFlag& cancel,
    const std::function<void(int ahead)>& waiting) {
  std::unique_lock<std::mutex> lock(mu_);
  Line& line = lines_[device];
  const uint64_t mine = line.next_ticket++;
  int said = -1;
  while (line.serving != mine) {
    if (cancel.cancelled()) {
      given_up_[device].insert(mine);
      return std::nullopt;
    }
    int ahead = static_cast<int>(mine - line.serving);
    if (ahead != said && waiting) {
      said = ahead;
      lock.unlock();
      waiting(ahead);
      lock.lock();
      continue;
    }
    // Cancellation is a flag, not a notification: look again now and then.
    changed_.wait_for(lock, std::chrono::milliseconds(100));
  }
  return Turn(this, device);
}

void DeviceQueue::Release(const std::string& device) {
  std::lock_guard<std::mutex> lock(mu_);
  Line& line = lines_[device];
  std::set<uint64_t>& given_up = given_up_[device];
  ++line.serving;
  while (given_up.erase(line.serving)) ++line.serving;
  changed_.notify_all();
}

}  // namespace hone::mcp
