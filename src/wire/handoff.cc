#include "wire/handoff.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace hone::handoff {

bool Send(int socket, const std::vector<std::string>& args, const std::vector<int>& fds,
          std::string* error) {
  std::string blob;
  for (const auto& a : args) {
    blob += a;
    blob += '\0';
  }
  if (blob.size() > kMaxArgBytes || fds.size() > static_cast<size_t>(kMaxFds)) {
    *error = "hand-off too large: " + std::to_string(blob.size()) + " bytes, " +
             std::to_string(fds.size()) + " descriptors";
    return false;
  }
  iovec iov{blob.data(), blob.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t n;
  do {
    n = sendmsg(socket, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(blob.size())) {
    *error = std::string("sending the hand-off: ") + (n < 0 ? strerror(errno) : "short write");
    return false;
  }
  return true;
}

bool Receive(int socket, std::vector<std::string>* args, std::vector<int>* fds,
             std::string* error) {
  std::string blob(kMaxArgBytes + 1, '\0');
  iovec iov{blob.data(), blob.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    *error = std::string("receiving the hand-off: ") + strerror(errno);
    return false;
  }
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      fds->push_back(fd);
    }
  }
  if (n == 0) {
    *error = "the worker closed the hand-off socket";
    return false;
  }
  if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
    *error = "the hand-off was truncated";
    return false;
  }
  args->clear();
  size_t start = 0;
  for (size_t i = 0; i < static_cast<size_t>(n); ++i)
    if (blob[i] == '\0') {
      args->emplace_back(blob.data() + start, i - start);
      start = i + 1;
    }
  return true;
}

}  // namespace hone::handoff
