// Pinning sandboxes' calling threads to one claimed CPU, and giving it back.
#include "compat/calling_thread_pin.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

namespace hone {
namespace {

// A child process that sleeps until killed: a stand-in for a sandbox.
class Sleeper {
 public:
  Sleeper() {
    pid_ = fork();
    if (pid_ == 0) {
      pause();
      _exit(0);
    }
  }
  ~Sleeper() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

cpu_set_t CpusOf(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(tid, sizeof set, &set), 0);
  return set;
}

TEST(CallingThreadPinTest, PinsBothThreadsToOneCpuAndRestoresThem) {
  Sleeper a, b;
  const cpu_set_t before = CpusOf(a.pid());
  int cpu = -1;
  {
    auto pin = CallingThreadPin::Claim("0000:00:06.0");
    ASSERT_TRUE(pin.ok()) << pin.status().message();
    cpu = (*pin)->cpu();
    ASSERT_TRUE((*pin)->Pin(a.pid()).ok());
    ASSERT_TRUE((*pin)->Pin(b.pid()).ok());
    for (pid_t tid : {a.pid(), b.pid()}) {
      cpu_set_t now = CpusOf(tid);
      EXPECT_EQ(CPU_COUNT(&now), 1);
      EXPECT_TRUE(CPU_ISSET(cpu, &now));
    }
    EXPECT_TRUE((*pin)->Strayed().empty());
  }
  cpu_set_t after = CpusOf(a.pid());
  EXPECT_TRUE(CPU_EQUAL(&after, &before)) << "the destructor gives the thread its CPUs back";
  EXPECT_GE(cpu, 0);
}

TEST(CallingThreadPinTest, LivePinsClaimDifferentCpusAndReleaseThem) {
  cpu_set_t mine = CpusOf(0);
  const int n = CPU_COUNT(&mine);
  std::vector<std::unique_ptr<CallingThreadPin>> pins;
  std::set<int> cpus;
  for (int i = 0; i < n; ++i) {
    auto pin = CallingThreadPin::Claim("same");
    ASSERT_TRUE(pin.ok()) << pin.status().message();
    cpus.insert((*pin)->cpu());
    pins.push_back(std::move(*pin));
  }
  EXPECT_EQ(static_cast<int>(cpus.size()), n) << "no two live pins share a CPU";
  auto none = CallingThreadPin::Claim("same");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("held by another pin"), std::string::npos);
  const int freed = pins.back()->cpu();
  pins.pop_back();
  auto again = CallingThreadPin::Claim("same");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->cpu(), freed);
}

TEST(CallingThreadPinTest, AThreadThatChangesItsCpusIsNamed) {
  Sleeper a, b;
  auto pin = CallingThreadPin::Claim("");
  ASSERT_TRUE(pin.ok());
  ASSERT_TRUE((*pin)->Pin(a.pid()).ok());
  ASSERT_TRUE((*pin)->Pin(b.pid()).ok());
  cpu_set_t all = CpusOf(0);
  if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "one CPU: a thread cannot leave it";
  // What a candidate calling sched_setaffinity on itself would do.
  ASSERT_EQ(sched_setaffinity(b.pid(), sizeof all, &all), 0);
  EXPECT_EQ((*pin)->Strayed(), std::vector<pid_t>{b.pid()});
}

TEST(CallingThreadPinTest, AThreadThatCannotBePinnedIsAnErrorNamingIt) {
  auto pin = CallingThreadPin::Claim("");
  ASSERT_TRUE(pin.ok());
  Status st = (*pin)->Pin(999999999);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("thread 999999999"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace hone
