#include "cli/stop_signals.h"

#include <signal.h>

#include <ctime>

namespace hone::cli {
namespace {

sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

void BlockStopSignals() {
  sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

bool StopSignalWithin(std::chrono::milliseconds wait) {
  sigset_t set = StopSignals();
  timespec ts{static_cast<time_t>(wait.count() / 1000),
              static_cast<long>(wait.count() % 1000) * 1000000};
  return sigtimedwait(&set, nullptr, &ts) > 0;
}

}  // namespace hone::cli
