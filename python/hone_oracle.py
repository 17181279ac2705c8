#!/usr/bin/env python3
"""hone's oracle: the one Python component (docs/ORACLE.md).

A long-lived process, one per device, started by hone's trusted worker. It
loads PyTorch-defined problems (KernelBench format), builds each model once
under a fixed seed, and for a (seed, value distribution) produces the
forward arguments, the state_dict() tensors, the expected outputs and a
float64 reference: on a GPU straight into the worker's device buffers
(CUDA IPC), on the CPU into raw files the worker reads. It also writes out
ModelNew files' load_inline extensions for hone to build. It never times
anything: baselines are timed by hone's sandbox, like candidates.

Protocol: one JSON request per line on stdin, one JSON reply per line on
stdout. Logs go to stderr; anything a problem prints goes to stderr too.
Every failure is a reply {"ok": false, "error": ...}; the oracle never exits
on a bad request or a bad problem.

`python3 hone_oracle.py --check` prints the torch version and exits 0, or
explains that torch is missing and exits 3.
"""

import ast
import contextlib
import copy
import ctypes
import hashlib
import inspect
import json
import math
import os
import platform
import random
import re
import sys
import time
import traceback
import types

ORACLE_PROTOCOL_VERSION = 1
EXIT_NO_TORCH = 3
MODEL_SEED = 0  # default seed the model (and get_init_inputs) is built under

torch = None  # imported in main() so that --check can report its absence

# ---------------------------------------------------------------------------
# dtypes and the tensor writer


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


def _scaled(args, i, factor):
    """args[i] times factor. In place when nothing else can see the tensor
    (not a view, not listed twice, not kept by the problem's module), so a
    full-size input does not need a second copy of itself; otherwise a new
    tensor."""
    a = args[i]
    # References: the list's slot, `a`, and getrefcount's own argument.
    alone = (
        sys.getrefcount(a) <= 3
        and a._base is None
        and not a.requires_grad
        and all(b is a or not torch.is_tensor(b) or b.data_ptr() != a.data_ptr() for b in args)
    )
    if not alone:
        return a * factor
    with torch.no_grad():
        return a.mul_(factor)


def _needs_sign(t):
    """Whether `t` is a floating tensor of non-negative values that are not
    only 0 and 1 (a mask): what torch.rand makes."""
    if not (torch.is_tensor(t) and t.is_floating_point() and t.dim() > 0 and t.numel() > 0):
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
    a = args[i]
    alone = (
        sys.getrefcount(a) <= 3
        and a._base is None
        and not a.requires_grad
        and all(b is a or not torch.is_tensor(b) or b.data_ptr() != a.data_ptr() for b in args)
    )
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


# ---------------------------------------------------------------------------
# problem loading and shape scaling

# Module-level integers whose names say they are not sizes: scaling them
# would change the operator, not its size.
_UNSCALED_NAME = re.compile(
    r"(kernel|stride|pad|dilation|group|head|axis|seed|eps|momentum|"
    r"num_layers|layers|depth|order|^k$|top_?k)",
    re.IGNORECASE,
)
_SMALL = 8  # values below this are axes, kernel sizes or counts: never scaled

# Named size policies: a byte budget for one problem's inputs, parameters and
# outputs together (the worker keeps several copies of each).
POLICIES = {
    "full": None,  # scale 1
    "cpu24g": 1 << 30,  # level 1-3 on a 24 GiB CPU machine
    "small": 64 << 20,
    "tiny": 4 << 20,
}


def _int_value(node):
    """The value of an integer constant expression, or None."""
    if isinstance(node, ast.Constant):
        v = node.value
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int_value(node.operand)
        return -v if v is not None else None
    if isinstance(node, ast.BinOp):
        a, b = _int_value(node.left), _int_value(node.right)
        if a is None or b is None:
            return None
        ops = {
            ast.Add: lambda: a + b,
            ast.Sub: lambda: a - b,
            ast.Mult: lambda: a * b,
            ast.FloorDiv: lambda: a // b if b else None,
            ast.Pow: lambda: a**b if 0 <= b <= 64 else None,
            ast.LShift: lambda: a << b if 0 <= b <= 64 else None,
        }
        f = ops.get(type(node.op))
        return f() if f else None
    return None


def _scaled_int(v, factor):
    """Scales a size, keeping its power-of-two factor up to 16 so that it
    still divides by groups or heads, and never below 1."""
    align = 1
    while align < 16 and v % (align * 2) == 0:
        align *= 2
    target = v * factor
    while align > 1 and align > target:
        align //= 2
    return max(align, int(round(target / align)) * align, 1)


def scale_source(tree, factor):
    """Rewrites module-level integer sizes in place. Returns the size table."""
    sizes, unscaled = {}, {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            targets, value_attr = stmt.targets, "value"
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value_attr = [stmt.target], "value"
        else:
            continue
        if not all(isinstance(t, ast.Name) for t in targets):
            continue
        v = _int_value(getattr(stmt, value_attr))
        if v is None:
            continue
        for t in targets:
            if v < _SMALL or _UNSCALED_NAME.search(t.id):
                unscaled[t.id] = v
            else:
                new = v if factor == 1 else _scaled_int(v, factor)
                sizes[t.id] = {"original": v, "scaled": new}
        if any(t.id in sizes for t in targets) and factor != 1:
            new = sizes[targets[0].id]["scaled"] if targets[0].id in sizes else v
            node = ast.Constant(value=new)
            ast.copy_location(node, getattr(stmt, value_attr))
            setattr(stmt, value_attr, node)
    return sizes, unscaled


def problem_location(exc, path):
    """'path:line' of the innermost frame in the problem file, or ''."""
    if isinstance(exc, SyntaxError) and exc.filename == path:
        return f"{path}:{exc.lineno}"
    line = None
    for fr in traceback.extract_tb(exc.__traceback__):
        if fr.filename == path:
            line = fr.lineno
    return f"{path}:{line}" if line is not None else ""


def describe_exception(exc, path):
    loc = problem_location(exc, path)
    msg = f"{type(exc).__name__}: {exc}".strip()
    msg = msg.splitlines()[0] if msg else type(exc).__name__
    return f"{loc}: {msg}" if loc else f"{path}: {msg}"


class Skip(Exception):
    """The problem cannot run here (missing package, needs CUDA, ...)."""


def _skip_reason(exc, path):
    if isinstance(exc, ImportError):
        return "missing package: " + describe_exception(exc, path)
    text = str(exc)
    if ("CUDA" in text or "cuda" in text) and torch is not None and not torch.cuda.is_available():
        return "needs CUDA: " + describe_exception(exc, path)
    return None


def _out_of_memory(exc):
    oom = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None)
    return (oom is not None and isinstance(exc, oom)) or "out of memory" in str(exc)


def _seed_all(seed):
    torch.manual_seed(seed)
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % (1 << 32))


def derived_seed(seed, dist):
    h = hashlib.sha256(f"hone-oracle:{seed}:{dist}".encode()).digest()
    return int.from_bytes(h[:8], "little") & ((1 << 63) - 1)


def _flatten(x, what):
    if isinstance(x, (tuple, list)):
        out = []
        for e in x:
            out.extend(_flatten(e, what))
        return out
    if torch.is_tensor(x):
        return [x]
    if isinstance(x, bool):
        return [torch.tensor(x)]
    if isinstance(x, int):
        return [torch.tensor(x, dtype=torch.int64)]
    if isinstance(x, float):
        return [torch.tensor(x, dtype=torch.float32)]
    raise OracleError(f"{what} is a {type(x).__name__}; the contract carries tensors and numbers")


def to_contract_tensor(x, what):
    """A forward argument as the candidate sees it: a Python number becomes a
    0-d tensor (float -> f32, int -> i64, bool -> bool)."""
    if torch.is_tensor(x):
        return x
    if isinstance(x, (bool, int, float)):
        return _flatten(x, what)[0]
    raise Skip(f"{what} is a {type(x).__name__}; the contract carries tensors and numbers")


# ---------------------------------------------------------------------------
# value distributions

BUILTIN_DISTRIBUTIONS = {
    "get_inputs": "get_inputs() under the seed (torch.manual_seed(seed) first)",
    "scaled": (
        "get_inputs() under a derived seed, then every floating tensor multiplied "
        "by a positive factor drawn per tensor from [0.5, 4] (log-uniform); keeps "
        "zeros, signs, triangles and masks; integer and bool tensors (indices, "
        "masks) and Python numbers are left as get_inputs() made them"
    ),
    "signed": (
        "get_inputs() under a derived seed, then every floating tensor whose values "
        "are all non-negative (torch.rand's [0, 1)) and not only 0 and 1 given random "
        "signs, s0[i] * s1[j] * ... with one +-1 vector per dimension (the same one "
        "for the last two when they are equal): keeps zeros, triangles, symmetry and "
        "positive definiteness; left out where the reference is not finite on it"
    ),
}
# The distributions a problem has when it declares none.
DEFAULT_DISTRIBUTIONS = ["scaled", "signed"]


class Distribution:
    def __init__(self, index, name, description, source, fn=None):
        self.index, self.name, self.description = index, name, description
        self.source, self.fn = source, fn

    def describe(self):
        return {
            "index": self.index,
            "name": self.name,
            "description": self.description,
            "source": self.source,
        }


TASK_INFO_KEYS = {
    "name": str,
    "category": str,
    "description": str,
    "format": str,
    "tolerance": dict,
    "inputs": list,
    "outputs": list,
    "baselines": str,
    "data_beside": bool,
}
TASK_BASELINES = ("eager", "eager,compile")
TOLERANCE_KEYS = ("atol", "rtol", "required_matched_ratio")


def parse_task_info(mod, path):
    """A problem file may describe itself with `hone_task`, a dict of name,
    category, description, format (who wrote it), tolerance ({atol, rtol,
    required_matched_ratio}), the names of forward's inputs and outputs, and
    baselines ("eager": its speedup is against the reference as written, so
    torch.compile is timed only when the user asks) and data_beside (it reads
    files in its own folder, which the sandbox must read): what hone's generated
    files for other task formats say of their problem."""
    info = getattr(mod, "hone_task", None)
    if info is None:
        return {}
    if not isinstance(info, dict):
        raise OracleError(f"{path}: hone_task must be a dict")
    for key, value in info.items():
        if key not in TASK_INFO_KEYS or not isinstance(value, TASK_INFO_KEYS[key]):
            raise OracleError(
                f"{path}: hone_task['{key}']: expected one of "
                f"{', '.join(TASK_INFO_KEYS)} with a value of its type"
            )
    if info.get("baselines", "eager") not in TASK_BASELINES:
        raise OracleError(
            f"{path}: hone_task['baselines']: expected one of " f"{', '.join(TASK_BASELINES)}"
        )
    for key, value in info.get("tolerance", {}).items():
        if key not in TOLERANCE_KEYS or not isinstance(value, (int, float)) or value < 0:
            raise OracleError(
                f"{path}: hone_task['tolerance']['{key}']: expected one of "
                f"{', '.join(TOLERANCE_KEYS)} with a number >= 0"
            )
    return info


def parse_distributions(mod, path):
    """Index 0 is always get_inputs(). A task may set `hone_distributions` to
    a list of further entries (names of built-ins, callables seed -> inputs,
    or dicts {name, description, inputs}) or to None to have none."""
    dists = [Distribution(0, "get_inputs", BUILTIN_DISTRIBUTIONS["get_inputs"], "builtin")]
    declared = getattr(mod, "hone_distributions", DEFAULT_DISTRIBUTIONS)
    if declared is None:
        return dists
    if not isinstance(declared, (list, tuple)):
        raise OracleError(f"{path}: hone_distributions must be a list or None")
    for entry in declared:
        i = len(dists)
        if isinstance(entry, str):
            if entry == "get_inputs":
                continue
            if entry not in BUILTIN_DISTRIBUTIONS:
                raise OracleError(
                    f"{path}: unknown distribution '{entry}' in hone_distributions "
                    f"(built-ins: {', '.join(BUILTIN_DISTRIBUTIONS)})"
                )
            dists.append(Distribution(i, entry, BUILTIN_DISTRIBUTIONS[entry], "builtin"))
        elif callable(entry):
            doc = inspect.getdoc(entry) or "declared by the task"
            dists.append(
                Distribution(
                    i, getattr(entry, "__name__", f"dist{i}"), doc.splitlines()[0], "task", entry
                )
            )
        elif isinstance(entry, dict) and callable(entry.get("inputs")):
            dists.append(
                Distribution(
                    i,
                    str(entry.get("name", f"dist{i}")),
                    str(entry.get("description", "declared by the task")),
                    "task",
                    entry["inputs"],
                )
            )
        else:
            raise OracleError(
                f"{path}: hone_distributions entry {entry!r} is not a "
                f"built-in name, a callable or a dict with 'inputs'"
            )
    return dists


# ---------------------------------------------------------------------------
# a loaded problem


def _nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


class Problem:
    def __init__(self, pid, path, source, scale, policy, model_seed, device):
        self.id, self.path, self.source = pid, path, source
        self.scale, self.policy, self.model_seed = scale, policy, model_seed
        self.device = device
        self.task_hash = hashlib.sha256(
            source + json.dumps({"scale": scale, "model_seed": model_seed}).encode()
        ).hexdigest()
        self.mod = self.model = self.state = self.model64 = None
        # torch.device as a context manager (a default device) exists from torch 2.0.
        self.draw_on_device = hasattr(torch.device(device), "__enter__")
        self.memory = {}
        self.uses_rng = False
        self.sizes, self.unscaled, self.derived = {}, {}, {}

    # -- building ------------------------------------------------------------

    def build(self):
        tree = ast.parse(self.source, filename=self.path)
        self.sizes, self.unscaled = scale_source(tree, self.scale)
        code = compile(tree, self.path, "exec")
        mod = types.ModuleType(f"hone_problem_{self.id}")
        mod.__file__ = self.path
        exec(code, mod.__dict__)
        for need in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(mod, need):
                raise OracleError(
                    f"{self.path}: no {need} (KernelBench format needs Model, "
                    f"get_inputs and get_init_inputs)"
                )
        self.mod = mod
        self.derived = {
            k: v
            for k, v in vars(mod).items()
            if isinstance(v, int)
            and not isinstance(v, bool)
            and not k.startswith("_")
            and k not in self.sizes
            and k not in self.unscaled
        }
        self.distributions = parse_distributions(mod, self.path)
        self.task_info = parse_task_info(mod, self.path)
        _seed_all(self.model_seed)
        init = mod.get_init_inputs()
        _seed_all(self.model_seed)
        model = mod.Model(*init)
        if not isinstance(model, torch.nn.Module):
            raise OracleError(f"{self.path}: Model is not a torch.nn.Module")
        self.model = model.to(self.device)
        self.params = [(k, v) for k, v in self.model.state_dict().items() if torch.is_tensor(v)]
        buffers = {k for k, _ in self.model.named_buffers()}
        self.param_kind = {k: ("buffer" if k in buffers else "parameter") for k, _ in self.params}
        self.state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        # The contract is fixed by a first run: seed 0, distribution 0. Its
        # peak device memory tells the worker's memory plan what one forward
        # needs beyond its inputs.
        args = self._measured_draws()
        outs = self._measured_forward(args)
        self.arg_names = self._arg_names(len(args))
        self.contract_inputs = []
        for i, a in enumerate(args):
            t = to_contract_tensor(a, f"forward argument {i} ('{self.arg_names[i]}')")
            d = {
                "index": i,
                "name": self.arg_names[i],
                "role": "input",
                "kind": "forward_arg",
                "dtype": hone_dtype(t.dtype, f"input '{self.arg_names[i]}'"),
                "shape": list(t.shape),
            }
            if not torch.is_tensor(a):
                d["python_type"] = type(a).__name__
                d["value"] = a
            self.contract_inputs.append(d)
        for j, (k, v) in enumerate(self.params):
            self.contract_inputs.append(
                {
                    "index": len(args) + j,
                    "name": k,
                    "role": "param",
                    "kind": self.param_kind[k],
                    "dtype": hone_dtype(v.dtype, f"state_dict entry '{k}'"),
                    "shape": list(v.shape),
                }
            )
        named = self.task_info.get("outputs", [])
        self.output_names = (
            [str(x) for x in named]
            if len(named) == len(outs)
            else ["out"]
            if len(outs) == 1
            else [f"out{i}" for i in range(len(outs))]
        )
        self.contract_outputs = [
            {
                "index": i,
                "name": self.output_names[i],
                "role": "output",
                "dtype": hone_dtype(o.dtype, f"output {i}"),
                "shape": list(o.shape),
            }
            for i, o in enumerate(outs)
        ]
        self.footprint = (
            _nbytes([to_contract_tensor(a, "") for a in args])
            + _nbytes([v for _, v in self.params])
            + _nbytes(outs)
        )
        self._check_signed(args, outs)
        self._mark_constant_numbers(args)
        self.flops = self._count_flops(args)

    def _check_signed(self, args, outs):
        """Leaves out the `signed` distribution where it says nothing (no input
        to sign) or is not valid for the operator: the reference raises on
        signed inputs, or its outputs are not finite where get_inputs()'s
        are (a logarithm, a square root, probabilities). Why goes into
        `distributions_left_out`."""
        self.left_out = []
        at = next((d.index for d in self.distributions if d.name == "signed"), None)
        if at is None:
            return
        why = None
        if not any(_needs_sign(a) for a in args):
            why = "no floating input holds only non-negative values"
        else:
            try:
                signed = self.inputs(0, at)
                finite = all(bool(torch.isfinite(o).all()) for o in outs if o.is_floating_point())
                if finite and not all(
                    bool(torch.isfinite(o).all())
                    for o in self.forward(signed, clone=False)
                    if o.is_floating_point()
                ):
                    why = "the reference's outputs are not finite on signed inputs"
                del signed
            except Exception as e:  # the operator refuses negative values
                why = f"the reference raised on signed inputs ({type(e).__name__}: {e})"[:300]
        if why is None:
            return
        self.left_out.append({"name": "signed", "why": why})
        self.distributions = [d for d in self.distributions if d.name != "signed"]
        for i, d in enumerate(self.distributions):
            d.index = i

    def _rng_states(self):
        states = [torch.get_rng_state()]
        if self.device.startswith("cuda"):
            states.append(torch.cuda.get_rng_state(torch.device(self.device)))
        return states

    def _measured_forward(self, args):
        """The first forward, measured: its memory, and whether it draws
        random numbers (training-mode dropout): then hone seeds every call
        of a candidate as this oracle seeds the forward its expected outputs
        come from."""
        _seed_all(0)
        before = self._rng_states()
        outs = self._forward_measuring_memory(args)
        self.uses_rng = any(not torch.equal(a, b) for a, b in zip(before, self._rng_states()))
        return outs

    def _forward_measuring_memory(self, args):
        if not self.device.startswith("cuda"):
            return self.forward(args)
        dev = torch.device(self.device)
        torch.cuda.synchronize(dev)
        torch.cuda.reset_peak_memory_stats(dev)
        before = torch.cuda.memory_allocated(dev)
        outs = self.forward(args, clone=False)
        torch.cuda.synchronize(dev)
        free, total = torch.cuda.mem_get_info(dev)
        self.memory.update(
            {
                "forward_peak_bytes": int(torch.cuda.max_memory_allocated(dev) - before),
                "model_bytes": int(_nbytes([v for v in self.state.values() if torch.is_tensor(v)])),
                "device_free_bytes": int(free),
                "device_total_bytes": int(total),
            }
        )
        return outs

    def _mark_constant_numbers(self, args):
        """A Python number forward argument is `constant` when every seed and
        distribution gives the same value (the usual case: an alpha fixed in
        get_inputs). Compat candidates on CUDA receive it as a number, which
        they could not read from device memory without a synchronisation."""
        numbers = [i for i, a in enumerate(args) if not torch.is_tensor(a)]
        if not numbers:
            return
        others = [self.inputs(1, 0)] + [
            self.inputs(0, d) for d in range(1, len(self.distributions))
        ]
        for i in numbers:
            self.contract_inputs[i]["constant"] = all(o[i] == args[i] for o in others)

    def _count_flops(self, args):
        """Floating-point operations of one forward, counted by torch's
        FlopCounterMode (matmuls and convolutions; torch 2.1 and later), or
        None where it is unavailable."""
        try:
            from torch.utils.flop_counter import FlopCounterMode
        except ImportError:
            return None
        dev = [a.to(self.device) if torch.is_tensor(a) else a for a in args]
        try:
            counter = FlopCounterMode(display=False)
            with counter, torch.no_grad():
                self.model(*dev)
            return int(counter.get_total_flops())
        except Exception:  # a counter failure only loses the speed-of-light floor
            return None
        finally:
            self._restore(self.model)

    def _arg_names(self, n):
        named = self.task_info.get("inputs", [])
        if len(named) == n:
            return [str(x) for x in named]
        names = []
        try:
            sig = inspect.signature(self.model.forward)
            for p in sig.parameters.values():
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    names.append(p.name)
        except (TypeError, ValueError):
            pass
        return [names[i] if i < len(names) else f"arg{i}" for i in range(n)]

    # -- inputs and outputs --------------------------------------------------

    def inputs(self, seed, dist_index):
        if not 0 <= dist_index < len(self.distributions):
            raise OracleError(
                f"{self.path}: no distribution {dist_index} "
                f"(the problem has {len(self.distributions)})"
            )
        d = self.distributions[dist_index]
        s = seed if dist_index == 0 else derived_seed(seed, dist_index)
        args = self._draw(lambda: d.fn(seed) if d.fn is not None else self.mod.get_inputs(), s)
        if not isinstance(args, (list, tuple)):
            raise OracleError(
                f"{self.path}: distribution '{d.name}' returned a "
                f"{type(args).__name__}, not a list"
            )
        args = list(args)
        if d.name == "scaled":
            g = torch.Generator().manual_seed(derived_seed(seed, 1000 + dist_index))
            for i in range(len(args)):
                if torch.is_tensor(args[i]) and args[i].is_floating_point():
                    u = torch.rand((), generator=g, dtype=torch.float64).item()
                    factor = math.exp(math.log(0.5) + u * (math.log(4.0) - math.log(0.5)))
                    args[i] = _scaled(args, i, factor)
        elif d.name == "signed":
            g = torch.Generator().manual_seed(derived_seed(seed, 1000 + dist_index))
            for i in range(len(args)):
                if _needs_sign(args[i]):
                    args[i] = _signed(args, i, g)
        if self.model is not None and hasattr(self, "contract_inputs"):
            self._check_like_contract(args, d)
        return args

    def scaled_inputs(self, seed, dist_index, scale):
        """inputs(seed, dist_index) with every floating tensor argument
        multiplied by `scale` afterwards, in the tensor's dtype, as the
        worker scales a timed call's inputs: the worker's timing pool holds
        sets that are exact multiples of others, so a candidate cannot tell
        a checked call from an unchecked one by its inputs being a multiple
        of a set it has seen."""
        args = self.inputs(seed, dist_index)
        if scale != 1:
            for i in range(len(args)):
                if torch.is_tensor(args[i]) and args[i].is_floating_point():
                    args[i] = _scaled(args, i, scale)
        return args

    def _measured_draws(self):
        """The contract's inputs (seed 0, distribution 0), and the most device
        memory any distribution's draw takes (its inputs and whatever
        get_inputs() made on the way): the oracle draws a value set beside
        the worker's, so the memory plan counts it."""
        if not self.device.startswith("cuda"):
            return self.inputs(0, 0)
        dev = torch.device(self.device)
        peak = 0
        args = None
        for d in range(len(self.distributions)):
            torch.cuda.synchronize(dev)
            torch.cuda.reset_peak_memory_stats(dev)
            before = torch.cuda.memory_allocated(dev)
            drawn = self.inputs(0, d)
            torch.cuda.synchronize(dev)
            peak = max(peak, int(torch.cuda.max_memory_allocated(dev) - before))
            if d == 0:
                args = drawn
            del drawn
        self.memory["draw_peak_bytes"] = peak
        return args

    def _draw(self, make, seed):
        """get_inputs() (or a distribution) under the seed, made on the
        problem's device: a full-size KernelBench input (6.4 GB) takes
        seconds to draw on the CPU and milliseconds on the GPU. A problem
        whose get_inputs() does not run under a default device is drawn on
        the CPU, as KernelBench does."""
        if self.device.startswith("cuda") and self.draw_on_device:
            try:
                _seed_all(seed)
                with torch.device(self.device):
                    return make()
            except Exception as e:
                # Out of device memory says nothing of where get_inputs()
                # can run: this draw goes to the CPU, the next tries the
                # device again.
                if not _out_of_memory(e):
                    self.draw_on_device = False
        _seed_all(seed)
        return make()

    def _check_like_contract(self, args, d):
        n = len(self.arg_names)
        if len(args) != n:
            raise OracleError(
                f"{self.path}: distribution '{d.name}' gave {len(args)} "
                f"inputs, get_inputs() gives {n}"
            )
        for i, a in enumerate(args):
            t = to_contract_tensor(a, f"input {i}")
            c = self.contract_inputs[i]
            if list(t.shape) != c["shape"] or hone_dtype(t.dtype, "") != c["dtype"]:
                raise OracleError(
                    f"{self.path}: distribution '{d.name}' input {i} is "
                    f"{hone_dtype(t.dtype, '')}{list(t.shape)}, the contract says "
                    f"{c['dtype']}{c['shape']}"
                )

    def move_to(self, where):
        """Moves the model and its state snapshot (parks them in host memory
        with where="cpu", brings them back with the problem's device); the
        float64 copy is dropped and rebuilt when next needed."""
        if self.model is None or not self.device.startswith("cuda"):
            return
        self.model.to(where)
        self.state = {k: (v.to(where) if torch.is_tensor(v) else v) for k, v in self.state.items()}
        # state_dict() tensors taken at build time would keep the old copies alive.
        self.params = [(k, self.state[k]) for k, _ in self.params]
        self.model64 = None

    def _restore(self, model, double=False):
        with torch.no_grad():
            sd = {
                k: (v.double() if double and v.is_floating_point() else v)
                for k, v in self.state.items()
            }
            model.load_state_dict(sd)

    def forward(self, args, seed=0, clone=True):
        """The model's outputs. `clone`: run on copies, so an in-place forward
        leaves `args` as they were (not needed once they were written out)."""
        self._restore(self.model)
        dev = [
            (a.to(self.device).clone() if clone else a.to(self.device)) if torch.is_tensor(a) else a
            for a in args
        ]
        _seed_all(seed)
        with torch.no_grad():
            out = self.model(*dev)
        self._restore(self.model)  # train-mode BatchNorm must not drift
        return [o.detach() for o in _flatten(out, "the model's output")]

    def forward64(self, args, seed=0, widened=False):
        """The float64 model's outputs; `widened`: args are already float64
        copies on the device (no second copy)."""
        if self.model64 is None:
            self.model64 = copy.deepcopy(self.model).double()
        self._restore(self.model64, double=True)
        dev = []
        for a in args:
            if torch.is_tensor(a) and not widened:
                a = a.to(self.device)
                dev.append(a.double() if a.is_floating_point() else a.clone())
            else:
                dev.append(a)
        _seed_all(seed)
        with torch.no_grad():
            out = self.model64(*dev)
        self._restore(self.model64, double=True)
        # Floating outputs are always f64, even where the model casts its result.
        return [
            o.detach().double() if o.is_floating_point() else o.detach()
            for o in _flatten(out, "the float64 model's output")
        ]

    # -- replies -------------------------------------------------------------

    def summary(self):
        return {
            "problem": self.id,
            "path": self.path,
            "task_hash": self.task_hash,
            "scale": self.scale,
            "policy": self.policy,
            "sizes": self.sizes,
            "derived_sizes": self.derived,
        }

    def load_reply(self):
        r = {"ok": True, "status": "loaded"}
        r.update(self.summary())
        r.update(
            {
                "unscaled": self.unscaled,
                "device": self.device,
                "model_seed": self.model_seed,
                "inputs": self.contract_inputs,
                "outputs": self.contract_outputs,
                "distributions": [d.describe() for d in self.distributions],
                "distributions_left_out": getattr(self, "left_out", []),
                "footprint_bytes": self.footprint,
                "cost": {"bytes": self.footprint, "flops": self.flops},
                "memory": self.memory,
                "uses_rng": self.uses_rng,
                "task": self.task_info,
                "torch": torch.__version__,
            }
        )
        return r


# ---------------------------------------------------------------------------
# timing


def python_runtime():
    """What hone needs to embed this interpreter in a compat candidate's
    sandbox: the shared libpython, the prefixes and the module path."""
    import sysconfig

    lib = None
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    for name in (sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LDLIBRARY")):
        if name and name.endswith(tuple([".so"] + [f".so.{i}" for i in range(10)]) + (".0",)):
            for d in (libdir, os.path.join(sys.base_prefix, "lib")):
                if d and os.path.exists(os.path.join(d, name)):
                    lib = os.path.join(d, name)
                    break
        if lib:
            break
    return {
        "libpython": lib,
        "prefix": sys.prefix,
        "base_prefix": sys.base_prefix,
        "exec_prefix": sys.exec_prefix,
        "sys_path": [p for p in sys.path if p],
        "torch_dir": torch_dir(),
        "pycache_prefix": sys.pycache_prefix or "",
    }


def torch_has_bytecode():
    """Whether torch's sources have their compiled bytecode beside them, as
    pip and Debian install them. A prefix would then hide it: Python reads
    bytecode only under the prefix, so every fresh hone cache would compile
    torch again (2-4 s of a machine's first evaluation)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return False
    try:
        return os.path.exists(importlib.util.cache_from_source(spec.origin))
    except (NotImplementedError, ValueError):
        return False


def use_bytecode_dir(path):
    """Keeps compiled bytecode in `path` (hone's cache). Where site-packages
    holds no .pyc files and PYTHONDONTWRITEBYTECODE is set, as in many
    containers, every process compiles torch's sources again: 4-5 s of each
    `import torch`. With a prefix the interpreter writes them once, under
    `path` only (never beside the sources), and later processes read them.
    An environment that names its own prefix (PYTHONPYCACHEPREFIX) keeps
    it; where torch has its bytecode beside it, none is set."""
    if sys.pycache_prefix or torch_has_bytecode():
        return
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        print(
            f"hone oracle: bytecode folder {path}: {e.strerror}; compiling in memory",
            file=sys.stderr,
        )
        return
    sys.pycache_prefix = os.path.abspath(path)
    sys.dont_write_bytecode = False


def torch_dir():
    """torch's package folder, found without importing torch, so that
    `--runtime` and the hello give the same answer."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    return os.path.dirname(os.path.abspath(spec.origin))


def print_runtime():
    """`--runtime`: what the hello's "executable" and "runtime" will say, in
    a tenth of a second, so that hone can start a candidate's sandbox
    importing torch while this interpreter's oracle imports it too. Exit code
    3 when torch or numpy is not installed here."""
    import importlib.util

    for name in ("torch", "numpy"):
        if importlib.util.find_spec(name) is None:
            print(f"hone oracle: {sys.executable} has no {name}", file=sys.stderr)
            return EXIT_NO_TORCH
    print(json.dumps({"executable": sys.executable, "runtime": python_runtime()}))
    return 0


def device_name(device):
    if device.startswith("cuda"):
        return torch.cuda.get_device_name(torch.device(device))
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return "cpu: " + line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu: " + (platform.processor() or platform.machine())


# ---------------------------------------------------------------------------
# the server


class Oracle:
    # Problems whose models stay on the device; the others are parked in host
    # memory. A suite of 250 full-size problems would otherwise keep every
    # model (and its float64 copy) on the GPU the candidates are timed on.
    ACTIVE_PROBLEMS = 2

    def __init__(self, device):
        self.device = device
        self.problems = {}  # id -> Problem
        self.by_key = {}  # (path, source hash, scale, seed) -> id
        self.next_id = 1
        self.active = []  # ids of problems on the device, least recently used first

    def _activate(self, p):
        if p.id in self.active:
            self.active.remove(p.id)
        else:
            p.move_to(p.device)
        self.active.append(p.id)
        while len(self.active) > self.ACTIVE_PROBLEMS:
            old = self.problems.get(self.active.pop(0))
            if old is not None:
                old.move_to("cpu")
                release_device_memory(old.device)

    # -- requests ------------------------------------------------------------

    def handle(self, req):
        op = req.get("op")
        fn = {
            "hello": self.hello,
            "load": self.load,
            "generate": self.generate,
            "distributions": self.distributions,
            "prepare_extension": prepare_extension,
            "release": self.release,
        }.get(op)
        if fn is None:
            raise OracleError(
                f"unknown op {op!r} (hello, load, distributions, generate, "
                f"prepare_extension, release, exit)"
            )
        return fn(req)

    def hello(self, req):
        devices = [{"name": "cpu", "description": device_name("cpu")}]
        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                devices.append({"name": f"cuda:{i}", "description": device_name(f"cuda:{i}")})
        return {
            "ok": True,
            "protocol": ORACLE_PROTOCOL_VERSION,
            "torch": torch.__version__,
            "python": platform.python_version(),
            "executable": sys.executable,
            "device": self.device,
            "devices": devices,
            "compile_available": hasattr(torch, "compile"),
            "runtime": python_runtime(),
            "policies": {k: v for k, v in POLICIES.items()},
        }

    def load(self, req):
        path = req.get("path")
        if not isinstance(path, str):
            raise OracleError("load needs 'path'")
        path = os.path.abspath(path)
        if os.path.isdir(path):
            names = sorted(
                (n for n in os.listdir(path) if n.endswith(".py") and not n.startswith("_")),
                key=lambda n: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", n)],
            )
            out = []
            for n in names:
                sub = dict(req, path=os.path.join(path, n))
                try:
                    out.append(self.load(sub))
                except Exception as e:  # one bad file never stops the folder
                    out.append({"ok": False, "path": sub["path"], "error": str(e)})
            return {"ok": True, "status": "folder", "path": path, "problems": out}
        try:
            with open(path, "rb") as f:
                source = f.read()
        except OSError as e:
            raise OracleError(f"{path}: cannot read: {e.strerror}")
        model_seed = int(req.get("model_seed", MODEL_SEED))
        device = req.get("device", self.device)
        policy = req.get("policy")
        if policy is not None and policy not in POLICIES:
            raise OracleError(f"unknown policy '{policy}' (known: {', '.join(POLICIES)})")
        if policy is not None and req.get("shape_scale") is not None:
            raise OracleError("give shape_scale or policy, not both")
        try:
            if policy is not None:
                return self._load_policy(path, source, policy, model_seed, device).load_reply()
            scale = float(req.get("shape_scale", 1.0))
            if not 0 < scale <= 1:
                raise OracleError(f"shape_scale must be in (0, 1], got {scale}")
            return self._load_scaled(path, source, scale, None, model_seed, device).load_reply()
        except Skip as s:
            return {"ok": True, "status": "skipped", "path": path, "reason": str(s)}

    def _build(self, path, source, scale, policy, model_seed, device):
        key = (path, hashlib.sha256(source).hexdigest(), scale, model_seed, device)
        if key in self.by_key:
            p = self.problems[self.by_key[key]]
            p.policy = policy
            return p
        p = Problem(f"p{self.next_id}", path, source, scale, policy, model_seed, device)
        try:
            try:
                p.build()
            finally:
                release_device_memory(device)
        except (OracleError, Skip):
            raise
        except BaseException as e:  # the problem's own code failed
            if isinstance(e, KeyboardInterrupt):
                raise
            reason = _skip_reason(e, path)
            if reason:
                raise Skip(reason)
            raise ProblemFailure(describe_exception(e, path))
        self.next_id += 1
        self.problems[p.id] = p
        self.by_key[key] = p.id
        self._activate(p)
        return p

    def _load_scaled(self, path, source, scale, policy, model_seed, device):
        """Loads at `scale`. When a scaled problem fails to run, retries twice
        with a gentler scale (the square root of the factor); a problem that
        fails the same way at every scale is broken (an error), one that fails
        differently is skipped with every reason."""
        tried = []
        for _ in range(3):
            try:
                return self._build(path, source, scale, policy, model_seed, device)
            except ProblemFailure as e:
                tried.append((scale, str(e)))
                if scale >= 1.0:
                    break
                scale = math.sqrt(scale)
                scale = 1.0 if scale > 0.99 else float(f"{scale:.3g}")
        if len({msg for _, msg in tried}) == 1:
            raise OracleError(tried[0][1])
        raise Skip(
            "fails at every scale tried: " + "; ".join(f"scale {s:g}: {m}" for s, m in tried)
        )

    def _load_policy(self, path, source, policy, model_seed, device):
        budget = POLICIES[policy]
        if budget is None:
            return self._load_scaled(path, source, 1.0, policy, model_seed, device)
        # Probe the footprint at two small scales, fit bytes ~ c * scale^k,
        # and pick the largest scale the budget allows.
        a = self._load_scaled(path, source, 1 / 64, policy, model_seed, device)
        b = self._load_scaled(path, source, 1 / 16, policy, model_seed, device)
        fa, fb = max(a.footprint, 1), max(b.footprint, 1)
        if b.scale <= a.scale or fb <= fa:
            k = 0.0
        else:
            k = math.log(fb / fa) / math.log(b.scale / a.scale)
        if fb > budget:
            scale = b.scale * (budget / fb) ** (1 / k) if k > 0 else b.scale
        else:
            scale = 1.0 if k <= 0 else min(1.0, b.scale * (budget / fb) ** (1 / k))
        scale = max(float(f"{scale:.3g}"), 1e-4)
        p = self._load_scaled(path, source, min(scale, 1.0), policy, model_seed, device)
        probes, prev = [a, b], b
        # Secant refinement: too big shrinks, far under budget grows (rounded
        # sizes make the power law inexact at small scales).
        for _ in range(4):
            too_big = p.footprint > budget * 1.25
            too_small = p.footprint < budget / 4 and p.scale < 1.0
            if not (too_big or too_small) or p.scale <= 1e-4:
                break
            if p.scale != prev.scale and p.footprint != prev.footprint and p.footprint > 0:
                k2 = math.log(p.footprint / max(prev.footprint, 1)) / math.log(p.scale / prev.scale)
                k = k2 if k2 > 0 else k
            step = (budget / max(p.footprint, 1)) ** (1 / k) if k > 0 else (0.5 if too_big else 2.0)
            step = min(step, 0.9) if too_big else max(step, 1.1)
            nxt = min(1.0, float(f"{p.scale * step:.3g}"))
            if nxt == p.scale:
                break
            probes.append(p)
            prev, p = p, self._load_scaled(path, source, nxt, policy, model_seed, device)
            if too_small and p.footprint > budget * 1.25:  # overshot: keep the last that fit
                probes.append(p)
                p = prev
                break
        for probe in probes:  # the probes are not kept
            if probe is not p and probe.id in self.problems:
                del self.problems[probe.id]
                self.by_key = {k: v for k, v in self.by_key.items() if v != probe.id}
        return p

    def _problem(self, req):
        pid = req.get("problem")
        if pid not in self.problems:
            raise OracleError(f"unknown problem {pid!r}; load it first")
        p = self.problems[pid]
        self._activate(p)
        return p

    def distributions(self, req):
        p = self._problem(req)
        r = {"ok": True}
        r.update(p.summary())
        r["distributions"] = [d.describe() for d in p.distributions]
        return r

    def release(self, req):
        """Cached device memory back to the driver, for a memory plan that
        found too little free."""
        release_device_memory(self.device)
        return {"ok": True}

    def generate(self, req):
        p = self._problem(req)
        seed = int(req.get("seed", 0))
        dist = int(req.get("distribution", 0))
        scale = float(req.get("scale", 1))
        if isinstance(req.get("targets"), dict):
            try:
                return self._generate_into(p, seed, dist, req["targets"], scale)
            finally:
                # Kept only while the worker's memory plan has room for it
                # (its verify stage): re-allocating gigabytes per set is slow.
                if not req.get("keep_cache"):
                    release_device_memory(p.device)
        out_dir = req.get("out_dir")
        if not isinstance(out_dir, str):
            raise OracleError("generate needs 'out_dir' or 'targets'")
        os.makedirs(out_dir, exist_ok=True)
        try:
            args = p.scaled_inputs(seed, dist, scale)
            outs = p.forward(args, seed)
        except (OracleError, Skip) as e:
            raise OracleError(str(e))
        except Exception as e:
            raise OracleError(describe_exception(e, p.path))
        tensors = []
        for i, a in enumerate(args):
            t = to_contract_tensor(a, f"input {i}")
            tensors.append(write_tensor(out_dir, i, "input", p.arg_names[i], t))
        for j, (k, _) in enumerate(p.params):
            tensors.append(write_tensor(out_dir, len(args) + j, "param", k, p.state[k]))
        if [list(o.shape) for o in outs] != [c["shape"] for c in p.contract_outputs]:
            raise OracleError(
                f"{p.path}: output shapes {[list(o.shape) for o in outs]} differ "
                f"from the contract's {[c['shape'] for c in p.contract_outputs]}"
            )
        for i, o in enumerate(outs):
            tensors.append(write_tensor(out_dir, i, "output", p.output_names[i], o))
        ref64 = {"available": True}
        try:
            start = time.perf_counter()
            outs64 = p.forward64(args, seed)
            for i, o in enumerate(outs64):
                tensors.append(write_tensor(out_dir, i, "ref64_output", p.output_names[i], o))
            ref64["seconds"] = time.perf_counter() - start
        except Exception as e:
            ref64 = {"available": False, "reason": describe_exception(e, p.path)}
        r = {"ok": True}
        r.update(p.summary())
        r.update(
            {
                "seed": seed,
                "distribution": dist,
                "distribution_name": p.distributions[dist].name,
                "out_dir": os.path.abspath(out_dir),
                "tensors": tensors,
                "ref64": ref64,
            }
        )
        return r

    def _generate_into(self, p, seed, dist, targets, scale=1):
        """generate into the worker's device buffers (DeviceTargets): the
        inputs and parameters first, then the expected outputs, then, when
        `targets` has "ref64", the float64 reference, which is computed from
        the inputs already written (so the float32 inputs need not stay
        alive beside their float64 copies)."""
        want = {k: targets.get(k) for k in ("inputs", "outputs", "ref64")}
        n_in, n_out = len(p.contract_inputs), len(p.contract_outputs)
        if (
            not isinstance(want["inputs"], list)
            or len(want["inputs"]) != n_in
            or not isinstance(want["outputs"], list)
            or len(want["outputs"]) != n_out
            or (
                want["ref64"] is not None
                and (not isinstance(want["ref64"], list) or len(want["ref64"]) != n_out)
            )
        ):
            raise OracleError(
                f"generate: targets need {n_in} inputs, {n_out} outputs and "
                f"optionally {n_out} ref64 outputs"
            )
        sink = DeviceTargets(p.device)
        try:
            try:
                args = p.scaled_inputs(seed, dist, scale)
            except (OracleError, Skip) as e:
                raise OracleError(str(e))
            except Exception as e:
                raise OracleError(describe_exception(e, p.path))
            for i, a in enumerate(args):
                sink.write(want["inputs"][i], to_contract_tensor(a, f"input {i}"), f"input {i}")
            for j, (k, _) in enumerate(p.params):
                sink.write(want["inputs"][len(args) + j], p.state[k], f"state_dict entry '{k}'")
            try:
                outs = p.forward(args, seed, clone=False)
            except Exception as e:
                raise OracleError(describe_exception(e, p.path))
            del args
            if [list(o.shape) for o in outs] != [c["shape"] for c in p.contract_outputs]:
                raise OracleError(
                    f"{p.path}: output shapes {[list(o.shape) for o in outs]} "
                    f"differ from the contract's "
                    f"{[c['shape'] for c in p.contract_outputs]}"
                )
            for i, o in enumerate(outs):
                sink.write(want["outputs"][i], o, f"output {i}")
            del outs
            ref64 = {"available": False, "reason": "not asked for"}
            if want["ref64"] is not None:
                ref64 = self._ref64_into(p, seed, dist, sink, want)
        finally:
            sink.close()
        r = {"ok": True}
        r.update(p.summary())
        r.update(
            {
                "seed": seed,
                "distribution": dist,
                "distribution_name": p.distributions[dist].name,
                "ref64": ref64,
            }
        )
        return r

    def _ref64_into(self, p, seed, dist, sink, want):
        """The float64 reference of the inputs the worker now holds."""
        try:
            numbers = None
            args = []
            for i, c in enumerate(p.contract_inputs[: len(p.arg_names)]):
                if "python_type" in c:
                    if c.get("constant"):
                        args.append(c["value"])
                    else:  # rare: a number that varies with the seed; draw it again
                        numbers = numbers or p.inputs(seed, dist)
                        args.append(numbers[i])
                    continue
                dtype = getattr(torch, _TORCH_DTYPE[c["dtype"]])
                raw = sink.view(want["inputs"][i])
                t = (
                    raw.view(dtype).reshape(c["shape"])
                    if raw.numel()
                    else torch.empty(c["shape"], dtype=dtype, device=p.device)
                )
                # A copy: the forward may write into its inputs.
                args.append(t.double() if t.is_floating_point() else t.clone())
            start = time.perf_counter()
            outs64 = p.forward64(args, seed, widened=True)
            del args
            for i, o in enumerate(outs64):
                sink.write(want["ref64"][i], o, f"float64 output {i}")
            # The forward and the copies out, run to their end: on a GPU they
            # are only queued when the calls return (level1/68's 2.8 s float64
            # forward read as milliseconds). The worker checks float64
            # precision on fewer value sets when this is slow.
            sink.synchronize()
            return {"available": True, "seconds": time.perf_counter() - start}
        except Exception as e:
            return {"available": False, "reason": describe_exception(e, p.path)}


def prepare_extension(req):
    """A ModelNew's load_inline/cpp_extension.load extension, written out
    with the exact build commands this torch would run, for hone to build
    outside the sandbox (python/hone_extbuild.py)."""
    try:
        import hone_extbuild
    except ImportError as e:
        raise OracleError(f"prepare_extension needs hone_extbuild.py beside the oracle ({e})")
    return hone_extbuild.oracle_request(req)


class ProblemFailure(Exception):
    """The problem's own code raised; the message names file and line."""


def serve(device):
    # Replies go to a private copy of stdout; fd 1 becomes stderr so that
    # whatever a problem prints (Python or C) cannot corrupt the protocol.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    oracle = Oracle(device)

    def reply(obj, req_id):
        if req_id is not None:
            obj["id"] = req_id
        proto.write(json.dumps(obj, allow_nan=False, default=str) + "\n")
        proto.flush()

    for line in sys.stdin:
        if not line.strip():
            continue
        req_id = None
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise OracleError("a request is a JSON object")
            req_id = req.get("id")
            if req.get("op") == "exit":
                reply({"ok": True, "op": "exit"}, req_id)
                return 0
            r = oracle.handle(req)
            r.setdefault("op", req.get("op"))
            reply(r, req_id)
        except json.JSONDecodeError as e:
            reply({"ok": False, "error": f"malformed request: {e}"}, None)
        except KeyboardInterrupt:
            raise
        except (OracleError, ProblemFailure, Skip) as e:
            reply({"ok": False, "error": str(e)}, req_id)
        except BaseException as e:  # a bug or a problem's SystemExit: report, keep serving
            print(traceback.format_exc(), file=sys.stderr)
            reply({"ok": False, "error": f"internal error: {type(e).__name__}: {e}"}, req_id)
    return 0


def exit_with_worker():
    """A thread that ends the process the moment hone's end of stdin closes.
    hone ends its oracle itself when it ends normally; one killed outright
    (SIGKILL, the OOM killer) left it running until it next read a request,
    after an import or a baseline's timing of seconds to minutes, holding
    the GPU's memory. hone never half-closes the socket while it waits for
    a reply, so the peer's hang-up only ever means it is gone."""
    import select
    import threading

    def watch():
        poller = select.poll()
        poller.register(0, select.POLLRDHUP)
        while True:
            for _, events in poller.poll():
                if events & (select.POLLRDHUP | select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    os._exit(0)

    threading.Thread(target=watch, name="hone-exit-with-worker", daemon=True).start()


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description="hone's PyTorch oracle (docs/ORACLE.md)")
    ap.add_argument("--check", action="store_true", help="print the torch version and exit")
    ap.add_argument(
        "--runtime",
        action="store_true",
        help="print the interpreter's runtime as JSON without importing torch, and exit",
    )
    ap.add_argument(
        "--bytecode-dir",
        default=None,
        help="keep compiled Python bytecode here (sys.pycache_prefix)",
    )
    ap.add_argument("--device", default=None, help="cpu or cuda:N (default: cuda:0 if present)")
    ap.add_argument(
        "--exit-with-worker",
        action="store_true",
        help="exit the moment the other end of stdin (a socket) closes",
    )
    opts = ap.parse_args(argv)
    if opts.exit_with_worker:
        exit_with_worker()
    if opts.bytecode_dir:
        use_bytecode_dir(opts.bytecode_dir)
    if opts.runtime:
        return print_runtime()
    global torch
    try:
        import torch as _torch
        import numpy  # noqa: F401  (the tensor writer needs it)
    except Exception as e:  # ImportError, or a torch whose own libraries fail to load (OSError)
        print(
            f"hone oracle: {sys.executable} cannot import {getattr(e, 'name', None) or 'torch'} ({e}); "
            f"set HONE_PYTHON to a python3 with torch and numpy "
            f"(Debian: apt-get install python3-torch python3-numpy)",
            file=sys.stderr,
        )
        return EXIT_NO_TORCH
    torch = _torch
    if opts.check:
        print(
            f"torch {torch.__version__} python {platform.python_version()} "
            f"cuda {'yes' if torch.cuda.is_available() else 'no'} {sys.executable}"
        )
        return 0
    device = opts.device or ("cuda:0" if torch.cuda.is_available() else "cpu")
    return serve(device)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
