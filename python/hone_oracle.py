#!/usr/bin/env python3
"""hone's oracle: the one Python component (docs/ORACLE.md).

A long-lived process, one per device, started by hone's trusted worker. It
loads PyTorch-defined problems (KernelBench format), builds each model once
under a fixed seed, and for a (seed, value distribution) writes the forward
arguments, the state_dict() tensors, the expected outputs and a float64
reference into raw files the worker reads. It also times eager and
torch.compile baselines and caches them.

Protocol: one JSON request per line on stdin, one JSON reply per line on
stdout. Logs go to stderr; anything a problem prints goes to stderr too.
Every failure is a reply {"ok": false, "error": ...}; the oracle never exits
on a bad request or a bad problem.

`python3 hone_oracle.py --check` prints the torch version and exits 0, or
explains that torch is missing and exits 3.
"""

import ast
import copy
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
# Baselines timed under an older protocol are not reused from the cache.
BASELINE_PROTOCOL = 2  # 2: CUDA calls queued behind a hold, as hone times candidates

torch = None  # imported in main() so that --check can report its absence

# ---------------------------------------------------------------------------
# dtypes and the tensor writer


def _dtype_tables():
    t = torch
    to_hone = {
        t.float32: "f32", t.float64: "f64", t.float16: "f16", t.bfloat16: "bf16",
        t.int8: "i8", t.uint8: "u8", t.int16: "i16", t.int32: "i32",
        t.int64: "i64", t.bool: "bool",
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
        raise OracleError(f"{what} has dtype {dtype}, which the candidate contract "
                          f"cannot carry (f32 f64 f16 bf16 i8 u8 i16 i32 i64 bool)")
    return to_hone[dtype]


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
    return {"index": index, "name": name, "role": role, "dtype": dtype,
            "shape": list(tensor.shape), "file": path,
            "bytes": int(arr.size * arr.itemsize)}


# ---------------------------------------------------------------------------
# problem loading and shape scaling

# Module-level integers whose names say they are not sizes: scaling them
# would change the operator, not its size.
_UNSCALED_NAME = re.compile(
    r"(kernel|stride|pad|dilation|group|head|axis|seed|eps|momentum|"
    r"num_layers|layers|depth|order|^k$|top_?k)", re.IGNORECASE)
_SMALL = 8  # values below this are axes, kernel sizes or counts: never scaled

# Named size policies: a byte budget for one problem's inputs, parameters and
# outputs together (the worker keeps several copies of each).
POLICIES = {
    "full": None,                 # scale 1
    "cpu24g": 1 << 30,            # level 1-3 on a 24 GiB CPU machine
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
        ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
               ast.FloorDiv: lambda: a // b if b else None,
               ast.Pow: lambda: a ** b if 0 <= b <= 64 else None,
               ast.LShift: lambda: a << b if 0 <= b <= 64 else None}
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
    "scaled": ("get_inputs() under a derived seed, then every floating tensor multiplied "
               "by a positive factor drawn per tensor from [0.5, 4] (log-uniform); keeps "
               "zeros, signs, triangles and masks; integer and bool tensors (indices, "
               "masks) and Python numbers are left as get_inputs() made them"),
}


class Distribution:
    def __init__(self, index, name, description, source, fn=None):
        self.index, self.name, self.description = index, name, description
        self.source, self.fn = source, fn

    def describe(self):
        return {"index": self.index, "name": self.name,
                "description": self.description, "source": self.source}


def parse_distributions(mod, path):
    """Index 0 is always get_inputs(). A task may set `hone_distributions` to
    a list of further entries (names of built-ins, callables seed -> inputs,
    or dicts {name, description, inputs}) or to None to have none."""
    dists = [Distribution(0, "get_inputs", BUILTIN_DISTRIBUTIONS["get_inputs"], "builtin")]
    declared = getattr(mod, "hone_distributions", ["scaled"])
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
                raise OracleError(f"{path}: unknown distribution '{entry}' in hone_distributions "
                                  f"(built-ins: {', '.join(BUILTIN_DISTRIBUTIONS)})")
            dists.append(Distribution(i, entry, BUILTIN_DISTRIBUTIONS[entry], "builtin"))
        elif callable(entry):
            doc = inspect.getdoc(entry) or "declared by the task"
            dists.append(Distribution(i, getattr(entry, "__name__", f"dist{i}"),
                                      doc.splitlines()[0], "task", entry))
        elif isinstance(entry, dict) and callable(entry.get("inputs")):
            dists.append(Distribution(i, str(entry.get("name", f"dist{i}")),
                                      str(entry.get("description", "declared by the task")),
                                      "task", entry["inputs"]))
        else:
            raise OracleError(f"{path}: hone_distributions entry {entry!r} is not a "
                              f"built-in name, a callable or a dict with 'inputs'")
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
            source + json.dumps({"scale": scale, "model_seed": model_seed}).encode()).hexdigest()
        self.mod = self.model = self.state = self.model64 = None
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
                raise OracleError(f"{self.path}: no {need} (KernelBench format needs Model, "
                                  f"get_inputs and get_init_inputs)")
        self.mod = mod
        self.derived = {k: v for k, v in vars(mod).items()
                        if isinstance(v, int) and not isinstance(v, bool) and not k.startswith("_")
                        and k not in self.sizes and k not in self.unscaled}
        self.distributions = parse_distributions(mod, self.path)
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
        # The contract is fixed by a first run: seed 0, distribution 0.
        args = self.inputs(0, 0)
        outs = self.forward(args)
        self.arg_names = self._arg_names(len(args))
        self.contract_inputs = []
        for i, a in enumerate(args):
            t = to_contract_tensor(a, f"forward argument {i} ('{self.arg_names[i]}')")
            d = {"index": i, "name": self.arg_names[i], "role": "input",
                 "kind": "forward_arg", "dtype": hone_dtype(t.dtype, f"input '{self.arg_names[i]}'"),
                 "shape": list(t.shape)}
            if not torch.is_tensor(a):
                d["python_type"] = type(a).__name__
                d["value"] = a
            self.contract_inputs.append(d)
        for j, (k, v) in enumerate(self.params):
            self.contract_inputs.append({
                "index": len(args) + j, "name": k, "role": "param", "kind": self.param_kind[k],
                "dtype": hone_dtype(v.dtype, f"state_dict entry '{k}'"), "shape": list(v.shape)})
        self.output_names = ["out"] if len(outs) == 1 else [f"out{i}" for i in range(len(outs))]
        self.contract_outputs = [
            {"index": i, "name": self.output_names[i], "role": "output",
             "dtype": hone_dtype(o.dtype, f"output {i}"), "shape": list(o.shape)}
            for i, o in enumerate(outs)]
        self.footprint = (_nbytes([to_contract_tensor(a, "") for a in args])
                          + _nbytes([v for _, v in self.params]) + _nbytes(outs))
        self._mark_constant_numbers(args)
        self.flops = self._count_flops(args)

    def _mark_constant_numbers(self, args):
        """A Python number forward argument is `constant` when every seed and
        distribution gives the same value (the usual case: an alpha fixed in
        get_inputs). Compat candidates on CUDA receive it as a number, which
        they could not read from device memory without a synchronisation."""
        numbers = [i for i, a in enumerate(args) if not torch.is_tensor(a)]
        if not numbers:
            return
        others = [self.inputs(1, 0)] + [self.inputs(0, d) for d in range(1, len(self.distributions))]
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
            raise OracleError(f"{self.path}: no distribution {dist_index} "
                              f"(the problem has {len(self.distributions)})")
        d = self.distributions[dist_index]
        s = seed if dist_index == 0 else derived_seed(seed, dist_index)
        _seed_all(s)
        if d.fn is not None:
            args = d.fn(seed)
        else:
            args = self.mod.get_inputs()
        if not isinstance(args, (list, tuple)):
            raise OracleError(f"{self.path}: distribution '{d.name}' returned a "
                              f"{type(args).__name__}, not a list")
        args = list(args)
        if d.name == "scaled":
            g = torch.Generator().manual_seed(derived_seed(seed, 1000 + dist_index))
            for i, a in enumerate(args):
                if torch.is_tensor(a) and a.is_floating_point():
                    u = torch.rand((), generator=g, dtype=torch.float64).item()
                    factor = math.exp(math.log(0.5) + u * (math.log(4.0) - math.log(0.5)))
                    args[i] = a * factor
        if self.model is not None and hasattr(self, "contract_inputs"):
            self._check_like_contract(args, d)
        return args

    def _check_like_contract(self, args, d):
        n = len(self.arg_names)
        if len(args) != n:
            raise OracleError(f"{self.path}: distribution '{d.name}' gave {len(args)} "
                              f"inputs, get_inputs() gives {n}")
        for i, a in enumerate(args):
            t = to_contract_tensor(a, f"input {i}")
            c = self.contract_inputs[i]
            if list(t.shape) != c["shape"] or hone_dtype(t.dtype, "") != c["dtype"]:
                raise OracleError(
                    f"{self.path}: distribution '{d.name}' input {i} is "
                    f"{hone_dtype(t.dtype, '')}{list(t.shape)}, the contract says "
                    f"{c['dtype']}{c['shape']}")

    def _restore(self, model, double=False):
        with torch.no_grad():
            sd = {k: (v.double() if double and v.is_floating_point() else v)
                  for k, v in self.state.items()}
            model.load_state_dict(sd)

    def forward(self, args, seed=0):
        self._restore(self.model)
        dev = [a.to(self.device).clone() if torch.is_tensor(a) else a for a in args]
        _seed_all(seed)
        with torch.no_grad():
            out = self.model(*dev)
        self._restore(self.model)  # train-mode BatchNorm must not drift
        return [o.detach() for o in _flatten(out, "the model's output")]

    def forward64(self, args, seed=0):
        if self.model64 is None:
            self.model64 = copy.deepcopy(self.model).double()
        self._restore(self.model64, double=True)
        dev = []
        for a in args:
            if torch.is_tensor(a):
                a = a.to(self.device)
                dev.append(a.double() if a.is_floating_point() else a.clone())
            else:
                dev.append(a)
        _seed_all(seed)
        with torch.no_grad():
            out = self.model64(*dev)
        self._restore(self.model64, double=True)
        # Floating outputs are always f64, even where the model casts its result.
        return [o.detach().double() if o.is_floating_point() else o.detach()
                for o in _flatten(out, "the float64 model's output")]

    # -- replies -------------------------------------------------------------

    def summary(self):
        return {"problem": self.id, "path": self.path, "task_hash": self.task_hash,
                "scale": self.scale, "policy": self.policy, "sizes": self.sizes,
                "derived_sizes": self.derived}

    def load_reply(self):
        r = {"ok": True, "status": "loaded"}
        r.update(self.summary())
        r.update({"unscaled": self.unscaled, "device": self.device,
                  "model_seed": self.model_seed,
                  "inputs": self.contract_inputs, "outputs": self.contract_outputs,
                  "distributions": [d.describe() for d in self.distributions],
                  "footprint_bytes": self.footprint,
                  "cost": {"bytes": self.footprint, "flops": self.flops},
                  "torch": torch.__version__})
        return r


# ---------------------------------------------------------------------------
# timing


def _llc_bytes():
    best = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for idx in os.listdir(base):
            try:
                with open(os.path.join(base, idx, "size")) as f:
                    s = f.read().strip()
                mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1], 1)
                best = max(best, int(s.rstrip("KMG")) * mult)
            except (OSError, ValueError):
                continue
    except OSError:
        pass
    return best or (32 << 20)


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
    return {"libpython": lib, "prefix": sys.prefix, "base_prefix": sys.base_prefix,
            "exec_prefix": sys.exec_prefix, "sys_path": [p for p in sys.path if p],
            "torch_dir": os.path.dirname(os.path.abspath(torch.__file__))}


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


def time_callable(fn, device, warmup_s, min_reps, max_reps, budget_s, target_rse):
    """hone's timing protocol: warm-up by time, cache flush before every timed
    call, adaptive repetitions until the relative standard error is under the
    target or the budget ends. Samples in microseconds."""
    cuda = device.startswith("cuda")
    if cuda:
        l2 = getattr(torch.cuda.get_device_properties(torch.device(device)), "L2_cache_size", 0)
        flush = torch.empty(max(2 * (l2 or (50 << 20)) // 4, 1), dtype=torch.float32, device=device)
    else:
        flush = torch.empty(2 * _llc_bytes() // 4, dtype=torch.float32)
    warm_calls, t_end = 0, time.perf_counter() + warmup_s
    dispatch_s = 0.0  # the host's time to queue one call
    while warm_calls < 2 or time.perf_counter() < t_end:
        t0 = time.perf_counter()
        fn()
        dispatch_s = max(dispatch_s, time.perf_counter() - t0)
        warm_calls += 1
        if cuda:
            torch.cuda.synchronize()
    hold_cycles = _hold_cycles(device, dispatch_s) if cuda else 0
    samples, t_end = [], time.perf_counter() + budget_s
    while len(samples) < max_reps:
        flush.zero_()
        if cuda:
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            # Like hone's sandbox: the stream is held while the host queues
            # the call, so the events time the GPU's work, not the host's
            # dispatch (which hone's candidate timing leaves out too).
            torch.cuda._sleep(hold_cycles)
            start.record()
            fn()
            end.record()
            end.synchronize()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end) * 1000.0)
        else:
            t0 = time.perf_counter_ns()
            fn()
            samples.append((time.perf_counter_ns() - t0) / 1000.0)
        n = len(samples)
        if n >= min_reps:
            mean = sum(samples) / n
            var = sum((x - mean) ** 2 for x in samples) / max(n - 1, 1)
            rse = math.sqrt(var / n) / mean if mean > 0 else 0.0
            if rse < target_rse or time.perf_counter() > t_end:
                break
    s = sorted(samples)
    n = len(s)
    mean = sum(s) / n
    var = sum((x - mean) ** 2 for x in s) / max(n - 1, 1)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"available": True, "median_us": median, "min_us": s[0], "mean_us": mean,
            "rse": (math.sqrt(var / n) / mean) if mean > 0 else 0.0, "reps": n,
            "warmup_calls": warm_calls, "samples_us": samples,
            "timer": "cuda-events (held stream)" if cuda else "perf_counter_ns"}


def _hold_cycles(device, dispatch_s):
    """GPU cycles of a spin that outlasts the host's dispatch of one call
    (twice it, plus 50 us; at most 50 ms), from a measured spin rate."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    torch.cuda._sleep(1_000_000)
    end.record()
    end.synchronize()
    cycles_per_s = 1_000_000 / max(start.elapsed_time(end) * 1e-3, 1e-6)
    hold_s = min(2 * dispatch_s + 50e-6, 0.05)
    return int(hold_s * cycles_per_s)


# ---------------------------------------------------------------------------
# the server


class Oracle:
    def __init__(self, device):
        self.device = device
        self.problems = {}   # id -> Problem
        self.by_key = {}     # (path, source hash, scale, seed) -> id
        self.next_id = 1

    # -- requests ------------------------------------------------------------

    def handle(self, req):
        op = req.get("op")
        fn = {"hello": self.hello, "load": self.load, "generate": self.generate,
              "distributions": self.distributions, "time_baselines": self.time_baselines
              }.get(op)
        if fn is None:
            raise OracleError(f"unknown op {op!r} (hello, load, distributions, generate, "
                              f"time_baselines, exit)")
        return fn(req)

    def hello(self, req):
        devices = [{"name": "cpu", "description": device_name("cpu")}]
        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                devices.append({"name": f"cuda:{i}", "description": device_name(f"cuda:{i}")})
        return {"ok": True, "protocol": ORACLE_PROTOCOL_VERSION, "torch": torch.__version__,
                "python": platform.python_version(), "executable": sys.executable,
                "device": self.device, "devices": devices,
                "compile_available": hasattr(torch, "compile"),
                "runtime": python_runtime(),
                "policies": {k: v for k, v in POLICIES.items()}}

    def load(self, req):
        path = req.get("path")
        if not isinstance(path, str):
            raise OracleError("load needs 'path'")
        path = os.path.abspath(path)
        if os.path.isdir(path):
            names = sorted((n for n in os.listdir(path) if n.endswith(".py") and not n.startswith("_")),
                           key=lambda n: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", n)])
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
            p.build()
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
        raise Skip("fails at every scale tried: " + "; ".join(f"scale {s:g}: {m}" for s, m in tried))

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
        return self.problems[pid]

    def distributions(self, req):
        p = self._problem(req)
        r = {"ok": True}
        r.update(p.summary())
        r["distributions"] = [d.describe() for d in p.distributions]
        return r

    def generate(self, req):
        p = self._problem(req)
        seed = int(req.get("seed", 0))
        dist = int(req.get("distribution", 0))
        out_dir = req.get("out_dir")
        if not isinstance(out_dir, str):
            raise OracleError("generate needs 'out_dir'")
        os.makedirs(out_dir, exist_ok=True)
        try:
            args = p.inputs(seed, dist)
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
            raise OracleError(f"{p.path}: output shapes {[list(o.shape) for o in outs]} differ "
                              f"from the contract's {[c['shape'] for c in p.contract_outputs]}")
        for i, o in enumerate(outs):
            tensors.append(write_tensor(out_dir, i, "output", p.output_names[i], o))
        ref64 = {"available": True}
        try:
            outs64 = p.forward64(args, seed)
            for i, o in enumerate(outs64):
                tensors.append(write_tensor(out_dir, i, "ref64_output", p.output_names[i], o))
        except Exception as e:
            ref64 = {"available": False, "reason": describe_exception(e, p.path)}
        r = {"ok": True}
        r.update(p.summary())
        r.update({"seed": seed, "distribution": dist,
                  "distribution_name": p.distributions[dist].name,
                  "out_dir": os.path.abspath(out_dir), "tensors": tensors, "ref64": ref64})
        return r

    def time_baselines(self, req):
        p = self._problem(req)
        cache_dir = req.get("cache_dir") or os.environ.get("HONE_CACHE")
        dev_name = device_name(p.device)
        key = {"task_hash": p.task_hash, "device": dev_name, "torch": torch.__version__,
               "protocol": BASELINE_PROTOCOL}
        key_hash = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
        cache_file = None
        if cache_dir:
            cache_file = os.path.join(cache_dir, "oracle", "baselines", key_hash + ".json")
            if not req.get("refresh") and os.path.exists(cache_file):
                try:
                    with open(cache_file) as f:
                        cached = json.load(f)
                    r = {"ok": True, "cached": True, "cache_file": cache_file}
                    r.update(p.summary())
                    r.update({"key": key, "eager": cached["eager"], "compile": cached["compile"]})
                    return r
                except (OSError, ValueError, KeyError):
                    pass  # a damaged entry is timed again
        opts = dict(warmup_s=float(req.get("warmup_s", 0.1)),
                    min_reps=int(req.get("min_reps", 5)), max_reps=int(req.get("max_reps", 200)),
                    budget_s=float(req.get("budget_s", 1.0)),
                    target_rse=float(req.get("target_rse", 0.01)))
        args = p.inputs(int(req.get("seed", 0)), int(req.get("distribution", 0)))
        dev = [a.to(p.device) if torch.is_tensor(a) else a for a in args]
        try:
            with torch.no_grad():
                eager = time_callable(lambda: p.model(*dev), p.device, **opts)
            comp = self._time_compiled(p, dev, opts) if req.get("compile", True) else \
                {"available": False, "reason": "not requested"}
        except Exception as e:
            raise OracleError(describe_exception(e, p.path))
        finally:
            p._restore(p.model)
        if cache_file:
            os.makedirs(os.path.dirname(cache_file), exist_ok=True)
            tmp = cache_file + f".tmp{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump({"key": key, "eager": eager, "compile": comp, "options": opts,
                           "created": time.time()}, f)
            os.replace(tmp, cache_file)
        r = {"ok": True, "cached": False, "cache_file": cache_file}
        r.update(p.summary())
        r.update({"key": key, "eager": eager, "compile": comp})
        return r

    def _time_compiled(self, p, dev, opts):
        if not hasattr(torch, "compile"):
            return {"available": False,
                    "reason": f"torch {torch.__version__} has no torch.compile (needs 2.0 or later)"}
        try:
            compiled = torch.compile(p.model)
            with torch.no_grad():
                compiled(*dev)  # compiles
                return time_callable(lambda: compiled(*dev), p.device, **opts)
        except Exception as e:
            msg = f"{type(e).__name__}: {e}".strip().splitlines()
            return {"available": False, "reason": "torch.compile failed: " + (msg[0] if msg else "")}


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


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="hone's PyTorch oracle (docs/ORACLE.md)")
    ap.add_argument("--check", action="store_true", help="print the torch version and exit")
    ap.add_argument("--device", default=None, help="cpu or cuda:N (default: cuda:0 if present)")
    opts = ap.parse_args(argv)
    global torch
    try:
        import torch as _torch
        import numpy  # noqa: F401  (the tensor writer needs it)
    except ImportError as e:
        print(f"hone oracle: {sys.executable} cannot import {e.name or 'torch'} ({e}); "
              f"set HONE_PYTHON to a python3 with torch and numpy "
              f"(Debian: apt-get install python3-torch python3-numpy)", file=sys.stderr)
        return EXIT_NO_TORCH
    torch = _torch
    if opts.check:
        print(f"torch {torch.__version__} python {platform.python_version()} "
              f"cuda {'yes' if torch.cuda.is_available() else 'no'} {sys.executable}")
        return 0
    device = opts.device or ("cuda:0" if torch.cuda.is_available() else "cpu")
    return serve(device)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
