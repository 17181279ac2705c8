"""The oracle's tensors on their way to the worker (hone_oracle.py): the
dtypes the candidate contract carries (`hone_dtype`, `_TORCH_DTYPE`), the
raw files a CPU generate writes (`write_tensor`), the worker's device
buffers a GPU generate fills through CUDA IPC (`DeviceTargets`), the
in-place scaling and signing of drawn inputs (`_scaled`, `_signed`), and
cached device memory given back to the driver (`release_device_memory`).
`OracleError`, the expected failure every part reports, is defined here.

torch is this module's global `torch`, set by hone_oracle.main() (the
oracle imports it only once --check and --runtime are answered); nothing
of hone's is imported.
"""

import ctypes
import os
import re
import sys

torch = None  # set by hone_oracle.main(), which imports it


def _dtype_tables():
    t = torch
    to_hone = {
        t.float32: "f32",
        t.float64: "f64",
        t.float16: "f16",
        t.bfloat16: "bf16",
        t.int8: "i8",
        t.uint8: "u8",
        t.int16: "i16",
        t.int32: "i32",
        t.int64: "i64",
        t.bool: "bool",
    }
    # Same-size integer views used to get the raw bits out through numpy
    # (numpy has no bfloat16).
    bits = {t.float16: t.int16, t.bfloat16: t.int16}
    return to_hone, bits


class OracleError(Exception):
    """An expected failure, reported to the worker as {"ok": false}."""


def hone_dtype(dtype, what):
    to_hone, _ = _dtype_tables()
    if dtype not in to_hone:
        raise OracleError(
            f"{what} has dtype {dtype}, which the candidate contract "
            f"cannot carry (f32 f64 f16 bf16 i8 u8 i16 i32 i64 bool)"
        )
    return to_hone[dtype]


# hone dtype names -> torch dtype attribute names
_TORCH_DTYPE = {
    "f32": "float32",
    "f64": "float64",
    "f16": "float16",
    "bf16": "bfloat16",
    "i8": "int8",
    "u8": "uint8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "bool": "bool",
}


def _safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80]


def write_tensor(out_dir, index, role, name, tensor):
    """Writes one tensor as raw little-endian C-contiguous bytes and describes it.

    The single place that moves bulk data to the worker: switching to shared
    memory later changes only this function.
    """
    _, bits = _dtype_tables()
    dtype = hone_dtype(tensor.dtype, f"{role} '{name}'")
    t = tensor.detach().to("cpu").contiguous().reshape(-1)
    if t.dtype in bits:
        t = t.view(bits[t.dtype])
    arr = t.numpy()
    if sys.byteorder != "little":
        arr = arr.byteswap()
    fname = f"{role}_{index:03d}_{_safe(name)}.bin"
    path = os.path.join(out_dir, fname)
    with open(path, "wb") as f:
        arr.tofile(f)
    return {
        "index": index,
        "name": name,
        "role": role,
        "dtype": dtype,
        "shape": list(tensor.shape),
        "file": path,
        "bytes": int(arr.size * arr.itemsize),
    }


class _CudaArray:
    """A device pointer seen as a torch tensor through __cuda_array_interface__."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {
            "shape": (nbytes,),
            "typestr": "|u1",
            "data": (ptr, False),
            "version": 2,
        }


class _IpcHandle(ctypes.Structure):
    """CUipcMemHandle: 64 bytes, passed by value."""

    _fields_ = [("reserved", ctypes.c_char * 64)]


class DeviceTargets:
    """The worker's device buffers a generate fills, reached through CUDA IPC.

    The worker allocates each tensor of the set in its own memory and sends
    one IPC handle per buffer ({"ipc": hex, "offset": n, "bytes": n}); the
    oracle maps them, copies its tensors in on the device and unmaps them
    before replying. Nothing crosses the host or the disk, so full-size
    KernelBench problems (6.4 GB a tensor) cost a device copy per tensor.
    """

    _CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1

    def __init__(self, device):
        self.device = device
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.opened = {}  # handle hex -> mapped base pointer (a handle maps once)

    def view(self, target):
        """A uint8 tensor over the target's bytes (mapped until close())."""
        key = str(target.get("ipc", ""))
        ptr = self.opened.get(key)
        if ptr is None:
            handle = bytes.fromhex(key)
            if len(handle) != 64:
                raise OracleError("an IPC target needs a 64-byte handle")
            raw = _IpcHandle.from_buffer_copy(handle)
            ptr = ctypes.c_void_p()
            torch.cuda.set_device(torch.device(self.device))
            err = self.cuda.cuIpcOpenMemHandle_v2(
                ctypes.byref(ptr), raw, self._CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
            )
            if err != 0:
                raise OracleError(
                    f"cannot map the worker's buffer (cuIpcOpenMemHandle error {err})"
                )
            self.opened[key] = ptr
        n = int(target["bytes"])
        return torch.as_tensor(
            _CudaArray(ptr.value + int(target.get("offset", 0)), n), device=self.device
        )

    def write(self, target, tensor, what):
        dtype = hone_dtype(tensor.dtype, what)
        t = tensor.detach().contiguous().reshape(-1)
        if t.numel() == 0:
            return dtype
        raw = t.view(torch.uint8)
        dst = self.view(target)
        if dst.numel() != raw.numel():
            raise OracleError(
                f"{what}: the worker's buffer has {dst.numel()} bytes, the tensor " f"{raw.numel()}"
            )
        dst.copy_(raw.to(self.device, non_blocking=False))
        return dtype

    def synchronize(self):
        """Waits until every copy written so far (and the work they wait
        for) has run: they are queued on the device, not done."""
        torch.cuda.synchronize(torch.device(self.device))

    def close(self):
        self.synchronize()
        for ptr in self.opened.values():
            self.cuda.cuIpcCloseMemHandle(ptr)
        self.opened = {}


def _seen_only_by(args, i):
    """Whether nothing but its slot in `args` sees args[i]: not a view, not
    listed twice, not kept by the problem's module, no autograd. Called
    before the caller binds args[i] to a name of its own."""
    a = args[i]
    # References: the list's slot, `a`, and getrefcount's own argument.
    return (
        sys.getrefcount(a) <= 3
        and a._base is None
        and not a.requires_grad
        and all(b is a or not torch.is_tensor(b) or b.data_ptr() != a.data_ptr() for b in args)
    )


def _scaled(args, i, factor):
    """args[i] times factor. In place when nothing else can see the tensor
    (not a view, not listed twice, not kept by the problem's module), so a
    full-size input does not need a second copy of itself; otherwise a new
    tensor."""
    alone = _seen_only_by(args, i)
    a = args[i]
    if not alone:
        return a * factor
    with torch.no_grad():
        return a.mul_(factor)


def _may_need_sign(t):
    """Whether `t` is a floating tensor with elements, which `_needs_sign`
    then decides by its values."""
    return torch.is_tensor(t) and t.is_floating_point() and t.dim() > 0 and t.numel() > 0


def _needs_sign(t):
    """Whether `t` is a floating tensor of non-negative values that are not
    only 0 and 1 (a mask): what torch.rand makes."""
    if not _may_need_sign(t):
        return False
    with torch.no_grad():
        if bool((t < 0).any()):
            return False
        return not bool(((t == 0) | (t == 1)).all())


def _sign_vectors(shape, g, device, dtype):
    """One +-1 vector per dimension, the last two the same when they are
    equal (so a symmetric matrix stays symmetric)."""
    vs = []
    for k, n in enumerate(shape):
        if k == len(shape) - 1 and k > 0 and shape[k - 1] == n:
            vs.append(vs[-1])
            continue
        v = torch.randint(0, 2, (n,), generator=g, dtype=torch.int8).to(device=device, dtype=dtype)
        vs.append(v * 2 - 1)
    return vs


def _signed(args, i, g):
    """args[i] with random signs, t[i, j, ...] * s0[i] * s1[j] * ...: in place
    when nothing else sees the tensor (as _scaled), so a full-size input
    needs no second copy."""
    alone = _seen_only_by(args, i)
    a = args[i]
    out = a if alone else a.clone()
    with torch.no_grad():
        for k, v in enumerate(_sign_vectors(tuple(a.shape), g, a.device, a.dtype)):
            out.mul_(v.view([-1 if d == k else 1 for d in range(a.dim())]))
    return out


def release_device_memory(device):
    """Returns cached blocks to the driver: the worker and the candidate's
    sandbox share the GPU with the oracle, and full-size problems need it."""
    if device.startswith("cuda"):
        torch.cuda.synchronize(torch.device(device))
        torch.cuda.empty_cache()
