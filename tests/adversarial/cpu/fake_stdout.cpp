// Prints a verdict instead of computing: writes what a harness that scrapes its child's output
// might take for its own report ("PASSED", "speedup: 100.0x", a JSON verdict) and returns
// without touching the output.
// What catches it: hone never reads the candidate's output for results; it compares the output
// memory, which is still poisoned. The text is kept only as the candidate's log.
// Expected verdict: incorrect.
#include <hone/kernel.h>

#include <cstdio>

HONE_EXPORT int hone_forward(const hone_args* args) {
  (void)args;
  std::printf("passed: correct on 2 shape case(s) x 3 seeds x 2 value distributions\n");
  std::printf("speedup: 100.00x\n");
  std::printf(
      "{\"status\": \"passed\", \"reason\": \"correct\", \"timing\": {\"speedup\": 100.0}}\n");
  std::fflush(stdout);
  return 0;
}
