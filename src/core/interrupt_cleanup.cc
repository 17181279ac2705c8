#include "core/interrupt_cleanup.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

namespace hone {
namespace {

std::mutex& Mutex() {
  static std::mutex* mu = new std::mutex();  // never destroyed: used at exit
  return *mu;
}

std::set<std::filesystem::path>& Registered() {
  static auto* paths = new std::set<std::filesystem::path>();
  return *paths;
}

int g_pipe[2] = {-1, -1};
std::atomic<bool> g_ending{false};  // lock-free: set in a signal handler
static_assert(std::atomic<bool>::is_always_lock_free);

void OnSignal(int sig) {
  g_ending.store(true);
  const unsigned char c = static_cast<unsigned char>(sig);
  ssize_t ignored = write(g_pipe[1], &c, 1);
  (void)ignored;
}

// Waits for a signal's number, removes what is registered, then lets the
// signal end the process.
void Watch() {
  unsigned char sig = 0;
  while (read(g_pipe[0], &sig, 1) != 1) {
  }
  {
    std::lock_guard<std::mutex> lock(Mutex());
    std::error_code ec;
    for (const auto& path : Registered()) std::filesystem::remove_all(path, ec);
  }
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(128 + sig);  // raise returned: the signal is blocked in this thread
}

}  // namespace

void InstallInterruptCleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (pipe2(g_pipe, O_CLOEXEC) != 0) return;
    std::thread(Watch).detach();
    struct sigaction sa = {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
  });
}

bool EndAfterInterruptCleanup(int sig) {
  if (g_pipe[1] < 0) return false;
  OnSignal(sig);
  return true;
}

bool InterruptEnding() { return g_ending.load(); }

void MarkInterruptEndingForTesting() { g_ending.store(true); }

void RemoveOnInterrupt(const std::filesystem::path& path) {
  std::lock_guard<std::mutex> lock(Mutex());
  Registered().insert(path);
}

void ForgetOnInterrupt(const std::filesystem::path& path) {
  std::lock_guard<std::mutex> lock(Mutex());
  Registered().erase(path);
}

}  // namespace hone
