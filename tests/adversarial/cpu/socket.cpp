// Opens a TCP socket and tries to connect to 127.0.0.1:9 (discard), ignoring any failure,
// then computes the correct out. If the sandbox let socket() through, this would pass.
// Expected verdict: rejected (socket).
#include <arpa/inet.h>
#include <hone/kernel.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

HONE_EXPORT int hone_forward(const hone_args* args) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd >= 0) {
    sockaddr_in addr;
    std::memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(9);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    (void)connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
    close(fd);
  }
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
