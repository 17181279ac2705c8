"""A problem's FLOP count kept between processes: counting one forward under
torch's FlopCounterMode took 0.84 s of a fresh oracle's load on a warm H100
(torch 2.11) and 3.4 s of a fresh machine's first, on the first
evaluation's critical path, and its answer depends only on the problem.

A count is kept as `flops-KEY.json` in the oracle's --cache-dir, KEY naming
the problem's source and scale (its task hash), the device (its type and,
for a GPU, its model: a forward may branch on the card) and torch's
version. A file that is missing, unreadable or not a count is counted
again; one is written whole or not at all (a temporary file renamed), so
processes sharing the folder never read half of one.

torch is this module's global `torch`, set by hone_oracle.main().
"""

import hashlib
import json
import os
import tempfile

torch = None  # set by hone_oracle.main(), which imports it

# What `read` returns for a count not kept (None is a kept answer: this torch
# cannot count).
NOT_KEPT = object()


def device_kind(device):
    """The device as the count depends on it: "cpu", or "cuda NVIDIA H100 ..."."""
    dev = torch.device(device)
    if dev.type == "cuda":
        try:
            return f"cuda {torch.cuda.get_device_name(dev)}"
        except Exception:  # no driver: the count is made, never read, here
            return "cuda"
    return dev.type


def cache_file(folder, task_hash, device):
    """Where the count of the problem `task_hash` on `device` is kept, or None
    without a folder."""
    if not folder:
        return None
    key = hashlib.sha256(
        f"{task_hash} {device_kind(device)} {torch.__version__}".encode()
    ).hexdigest()
    return os.path.join(folder, f"flops-{key}.json")


def read(path):
    """The count kept at `path` (an int, or None for a torch without a
    counter), or NOT_KEPT."""
    try:
        with open(path) as f:
            kept = json.load(f)
    except (OSError, ValueError):
        return NOT_KEPT
    flops = kept.get("flops", NOT_KEPT) if isinstance(kept, dict) else NOT_KEPT
    if flops is None or (isinstance(flops, int) and not isinstance(flops, bool) and flops >= 0):
        return flops
    return NOT_KEPT


def keep(path, flops, source):
    """Writes the count for the next process; a folder that cannot be written
    costs that process the count, nothing more."""
    tmp = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".flops-", dir=os.path.dirname(path))
        with os.fdopen(fd, "w") as f:
            json.dump({"flops": flops, "path": source}, f)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
