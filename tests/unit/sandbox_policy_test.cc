// The sandbox's violation reporter in its text form: what a person reads in
// compute-sanitizer's log when a standalone call breaks a rule.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "sandbox/policy.h"
#include "wire/protocol.h"

namespace hone {
namespace {

TEST(ViolationReporterTest, TextFormNamesTheRuleAndTheCallOnOneLine) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    sandbox::InstallViolationReporter(fds[1], /*text=*/true);
    sandbox::PolicyReport report;
    if (!sandbox::InstallBaseFilter(report, /*cuda=*/true)) _exit(3);
    syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);  // denied: the handler ends the process
    _exit(0);
  }
  close(fds[1]);
  std::string said;
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    said.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "seccomp is not available here";
  EXPECT_EQ(WEXITSTATUS(status), wire::kViolationExitCode);
  EXPECT_EQ(said,
            "hone-sandbox: sandbox rule broken: network access is not allowed: socket "
            "(system call " +
                std::to_string(SYS_socket) + ")\n");
}

}  // namespace
}  // namespace hone
