#include "core/trace.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace hone {
namespace {

struct TraceState {
  bool enabled = false;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

const TraceState& State() {
  static const TraceState state = [] {
    TraceState s;
    const char* v = std::getenv("HONE_TRACE");
    s.enabled = v && *v && std::string_view(v) != "0";
    return s;
  }();
  return state;
}

}  // namespace

bool TraceEnabled() { return State().enabled; }

void Trace(std::string_view what) {
  const TraceState& s = State();
  if (!s.enabled) return;
  static std::mutex mu;
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count();
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(stderr, "hone trace +%.3fs %.*s\n", t, static_cast<int>(what.size()), what.data());
}

}  // namespace hone
