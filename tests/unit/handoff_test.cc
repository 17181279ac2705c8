#include "wire/handoff.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace hone {
namespace {

struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fd), 0); }
  ~SocketPair() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
};

TEST(SandboxHandoffTest, CarriesArgumentsAndDescriptors) {
  SocketPair s;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  std::vector<std::string> sent = {"--read-dir", "/usr/lib", "", "--compat"};
  std::string error;
  ASSERT_TRUE(handoff::Send(s.fd[0], sent, {pipe_fds[1]}, &error)) << error;
  close(pipe_fds[1]);

  std::vector<std::string> args;
  std::vector<int> fds;
  ASSERT_TRUE(handoff::Receive(s.fd[1], &args, &fds, &error)) << error;
  EXPECT_EQ(args, sent);  // an empty argument survives
  ASSERT_EQ(fds.size(), 1u);
  EXPECT_NE(fcntl(fds[0], F_GETFD) & FD_CLOEXEC, 0);
  // The received descriptor is the pipe's write end: what goes in comes out.
  ASSERT_EQ(write(fds[0], "x", 1), 1);
  char c = 0;
  ASSERT_EQ(read(pipe_fds[0], &c, 1), 1);
  EXPECT_EQ(c, 'x');
  close(fds[0]);
  close(pipe_fds[0]);
}

TEST(SandboxHandoffTest, RefusesWhatDoesNotFit) {
  SocketPair s;
  std::string error;
  std::vector<std::string> huge = {std::string(handoff::kMaxArgBytes + 1, 'a')};
  EXPECT_FALSE(handoff::Send(s.fd[0], huge, {}, &error));
  EXPECT_NE(error.find("too large"), std::string::npos) << error;
}

TEST(SandboxHandoffTest, ClosedPeerIsAnError) {
  SocketPair s;
  close(s.fd[0]);
  s.fd[0] = -1;
  std::vector<std::string> args;
  std::vector<int> fds;
  std::string error;
  EXPECT_FALSE(handoff::Receive(s.fd[1], &args, &fds, &error));
  EXPECT_NE(error.find("closed"), std::string::npos) << error;
}

}  // namespace
}  // namespace hone
