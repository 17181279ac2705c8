// Takes over the sandbox's side of the worker protocol. The candidate runs inside the sandbox
// process, which talks to the trusted worker over two pipes at fixed descriptors (requests on
// 3, replies on 4) in a documented fixed-size format (src/wire/protocol.h, mirrored below). On
// its first call hone_forward computes the output, sends the reply itself, and never returns:
// it serves every later bind and call request on its own, computing each output correctly,
// and answers every call with a forged time: 20 us for the call, plus a second of "cache
// flush before the call", which the worker subtracts from its own clock before comparing it
// with the reported time. It reads no clock, opens nothing and calls nothing the lint knows:
// plain read() and write() on descriptors it never opened. Every output is right; only the
// times are lies.
// What catches it: the worker must not believe a time it cannot bound. The sandbox's reply is
// a claim, and only the worker's own clock around the call is trustworthy: a reported call
// time plus flush time beyond what the worker saw, or a flush far longer than the
// reference's, is tampering.
// Expected verdict: rejected (timing) (task=heavy, timed). If src/wire/protocol.h changes,
// update the mirror below.
#include <hone/kernel.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Mirror of src/wire/protocol.h.
constexpr uint32_t kMagic = 0x454e4f48;
constexpr uint32_t kOpBind = 1, kOpCall = 2, kOpExit = 3;
constexpr uint32_t kFlagTimed = 1u << 2;
constexpr uint32_t kReplyOk = 2;
constexpr int kRequestFd = 3, kReplyFd = 4;
struct TensorSlot {
  int32_t dtype, ndim;
  int64_t shape[HONE_MAX_DIMS], stride[HONE_MAX_DIMS];
  uint64_t offset, bytes;
};
struct Request {
  uint32_t magic, op, binding, flags;
  uint64_t rng_seed;
};
struct BindPayload {
  int32_t num_inputs, num_outputs;
};
struct Reply {
  uint32_t magic, kind;
  int32_t rc, detail;
  uint64_t nanos, aux;
  uint32_t launches, own_launches, side_launches, side_copies;
  uint64_t device_sync_nanos, device_sync_cpu_nanos;
  uint32_t device_sync_preempted, call_flags;
  uint64_t prepare_nanos, post_mark_nanos;
  char side_copy[32];
  char message[200];
};
static_assert(sizeof(Reply) == 320, "mirror of wire::Reply");

struct Tensors {
  const float *a = nullptr, *b = nullptr;
  float* out = nullptr;
  int64_t n = 0;
};

void Compute(const Tensors& t) {
  for (int64_t i = 0; i < t.n; ++i) {
    float acc = 0;
    for (int k = 0; k < 64; ++k) acc += std::sin(t.a[i] * float(k + 1) * 0.01f + t.b[i]);
    t.out[i] = acc;
  }
}

bool ReadAll(void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t k = read(kRequestFd, c, n);
    if (k <= 0) return false;
    c += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

void Answer(uint64_t nanos, uint64_t prepare) {
  Reply r{};
  r.magic = kMagic;
  r.kind = kReplyOk;
  r.nanos = nanos;
  r.prepare_nanos = prepare;
  const char* c = reinterpret_cast<const char*>(&r);
  size_t n = sizeof r;
  while (n > 0) {
    ssize_t k = write(kReplyFd, c, n);
    if (k <= 0) std::_Exit(0);
    c += k;
    n -= static_cast<size_t>(k);
  }
}

// The forged times: every call "took" 20 us, after a 1 s cache flush.
constexpr uint64_t kCallNanos = 20000, kFlushNanos = 1000000000;

[[noreturn]] void Serve(char* arena, std::vector<Tensors> bindings) {
  for (;;) {
    Request req{};
    if (!ReadAll(&req, sizeof req) || req.magic != kMagic || req.op == kOpExit) std::_Exit(0);
    if (req.op == kOpBind) {
      BindPayload p{};
      if (!ReadAll(&p, sizeof p)) std::_Exit(0);
      std::vector<TensorSlot> slots(static_cast<size_t>(p.num_inputs + p.num_outputs));
      if (!ReadAll(slots.data(), slots.size() * sizeof(TensorSlot))) std::_Exit(0);
      Tensors t;
      t.a = reinterpret_cast<const float*>(arena + slots[0].offset);
      t.b = reinterpret_cast<const float*>(arena + slots[1].offset);
      t.out = reinterpret_cast<float*>(arena + slots[2].offset);
      t.n = static_cast<int64_t>(slots[2].bytes / sizeof(float));
      if (req.binding >= bindings.size()) bindings.resize(req.binding + 1);
      bindings[req.binding] = t;
      Answer(0, 0);
    } else if (req.op == kOpCall) {
      Compute(bindings[req.binding]);
      Answer(kCallNanos, req.flags & kFlagTimed ? kFlushNanos : 0);
    }
  }
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  Tensors first;
  first.a = static_cast<const float*>(args->inputs[0].data);
  first.b = static_cast<const float*>(args->inputs[1].data);
  first.out = static_cast<float*>(args->outputs[0].data);
  first.n = hone_numel(&args->outputs[0]);
  Compute(first);
  Answer(kCallNanos, 0);
  // The first call is on buffer slot 0, whose first input follows the shared arena's leading
  // canaries (kGuardBytes in src/process/arena.h).
  Serve(static_cast<char*>(args->inputs[0].data) - (64 << 10), {first});
}
