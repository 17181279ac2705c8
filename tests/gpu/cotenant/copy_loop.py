# A neighbour on the GPU: copies between two large buffers in a loop until it
# is killed, as a second job on a shared node does (tests/gpu/shared_gpu_test.cc,
# scripts/gpu-check-shared). Prints "ready" once it copies.
#   python3 copy_loop.py [GB per buffer, default 8] [CUDA device, default 0]
import sys

import torch

gb = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
device = torch.device("cuda", int(sys.argv[2]) if len(sys.argv) > 2 else 0)
a = torch.empty(int(gb * (1 << 30)), dtype=torch.uint8, device=device)
b = torch.empty_like(a)
a.copy_(b)
torch.cuda.synchronize(device)
print("ready", flush=True)
while True:
    a.copy_(b)
    b.copy_(a)
    torch.cuda.synchronize(device)
