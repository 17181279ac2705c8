#include "cli/interrupt_hint.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

#include "core/interrupt_cleanup.h"

namespace hone::cli {
namespace {

char g_line[1024];
volatile sig_atomic_t g_length = 0;

extern "C" void WriteHintAndEnd(int sig) {
  // A fresh line: a progress line may be half-drawn on the terminal.
  const char newline = '\n';
  (void)!write(STDERR_FILENO, &newline, 1);
  (void)!write(STDERR_FILENO, g_line, static_cast<size_t>(g_length));
  // The cleanup's thread removes the temporary files, then ends the process.
  if (EndAfterInterruptCleanup(sig)) return;
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void SayOnInterrupt(const std::string& line) {
  g_length = 0;
  size_t n = std::min(line.size(), sizeof g_line - 1);
  std::memcpy(g_line, line.data(), n);
  g_line[n] = '\n';
  g_length = static_cast<sig_atomic_t>(n + 1);
  InstallInterruptCleanup();  // first: the handler below replaces its SIGINT one
  std::signal(SIGINT, WriteHintAndEnd);
}

}  // namespace hone::cli
