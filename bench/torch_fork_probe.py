"""What a process forked from a Python that has imported torch costs, against the import.

The measurement behind the zygote idea in docs/PERFORMANCE.md ("Where the tests' CPU goes"):
compat sandboxes and oracles each import torch (about 2 s of CPU on a 2-core VM); a child
forked after the import shares its pages. Each child makes a small call, as a candidate's
first would, and exits.

    python3 bench/torch_fork_probe.py [CHILDREN]      (default 10; a Python that imports torch)
"""
import os
import resource
import sys
import time


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def main():
    children = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    wall = time.time()
    import torch
    import torch.nn.functional as F
    print(f"import torch: {time.time() - wall:.2f} s wall, "
          f"{cpu(resource.RUSAGE_SELF):.2f} s of CPU")
    x = torch.randn(16, 1025)
    before, wall = cpu(resource.RUSAGE_CHILDREN), time.time()
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            F.softmax(torch.relu(x * 2.0), dim=1).sum()
            os._exit(0)
        os.waitpid(pid, 0)
    each_cpu = (cpu(resource.RUSAGE_CHILDREN) - before) / children
    each_wall = (time.time() - wall) / children
    print(f"{children} forked children: {each_cpu * 1e3:.1f} ms of CPU, "
          f"{each_wall * 1e3:.1f} ms wall each")


if __name__ == "__main__":
    main()
