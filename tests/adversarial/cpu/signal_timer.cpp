// Defers work to a signal handler: computes the first half of out, hands the second half to a
// SIGALRM handler armed with setitimer to fire 100 us after hone_forward returns, and returns.
// The timed call then covers half the work; the handler finishes it "between calls", before
// anyone looks (it hopes).
// What catches it: the static lint's 'signal' rule. Without the lint, the sandbox's seccomp
// allow-list has no interval timers (setitimer, alarm, timer_create), so arming one is a
// violation; were it allowed, the idle-CPU check and the poisoned second half would remain.
// Expected verdict: rejected (lint 'signal'); dynamic: rejected (setitimer).
#include <hone/kernel.h>
#include <signal.h>
#include <sys/time.h>

static const float* volatile g_a;
static const float* volatile g_b;
static float* volatile g_out;
static volatile int64_t g_from, g_to;

static void Finish(int) {
  for (int64_t i = g_from; i < g_to; ++i) g_out[i] = g_a[i] + 2.0f * g_b[i];
  g_to = 0;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  static bool installed = false;
  if (!installed) {
    struct sigaction sa {};
    sa.sa_handler = Finish;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, nullptr);
    installed = true;
  }
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n / 2; ++i) out[i] = a[i] + 2.0f * b[i];
  g_a = a;
  g_b = b;
  g_out = out;
  g_from = n / 2;
  g_to = n;
  itimerval t{};
  t.it_value.tv_usec = 100;  // one shot, just after the return
  setitimer(ITIMER_REAL, &t, nullptr);
  return 0;
}
