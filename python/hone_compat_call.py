"""The calls of hone's compat runner (python/hone_compat.py): one hone_forward
call of the model the runner loaded, on hone's own buffers. hone's tensors
are viewed as torch tensors without a copy, the forward's drawn Python
scalars read before the clock starts, the model called on the call's stream,
and its results checked and copied into hone's outputs.

The C++ side embeds this source in the runner's config ("call_source",
src/compat/compat_candidate.cc WriteCompatShim) and the runner executes it
as the module `hone_compat_call`; the shim's calls reach `before_call` and
`call` through the runner's hone_compat_before_call and hone_compat_call. It
imports nothing of hone's: the runner fills `state` once the model has
loaded and hands it its seeding (`seed_all`) and its `call_failed` event
(scripts/check-layers, PYTHON_LAYERS).

Everything here runs inside the sandbox, next to the candidate's code, and
is as untrusted as it is: hone verifies outputs and times calls from outside.
Return values: 0 for success; anything else is hone_forward's failure code.
"""

import ctypes
import json
import sys
from typing import Any, Callable, Dict

MAX_DIMS = 8


class HoneTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAX_DIMS),
        ("stride", ctypes.c_int64 * MAX_DIMS),
    ]


class HoneArgs(ctypes.Structure):
    _fields_ = [
        ("inputs", ctypes.POINTER(HoneTensor)),
        ("num_inputs", ctypes.c_int32),
        ("outputs", ctypes.POINTER(HoneTensor)),
        ("num_outputs", ctypes.c_int32),
        ("stream", ctypes.c_void_p),
        ("workspace", ctypes.c_void_p),
        ("workspace_bytes", ctypes.c_size_t),
    ]


# hone_dtype -> (torch dtype name, element bytes, __cuda_array_interface__ typestr)
DTYPES = {
    0: ("float32", 4, "<f4"),
    1: ("float64", 8, "<f8"),
    2: ("float16", 2, "<f2"),
    3: ("bfloat16", 2, "<i2"),
    4: ("int8", 1, "|i1"),
    5: ("uint8", 1, "|u1"),
    6: ("int16", 2, "<i2"),
    7: ("int32", 4, "<i4"),
    8: ("int64", 8, "<i8"),
    9: ("bool", 1, "|b1"),
}

# The loaded model and what every call needs (hone_compat.py's _load fills it).
state: Dict[str, Any] = {}
# What the runner hands the calls when it loads them: the seeding of torch's
# and the other generators (seed_all(torch, seed)), and the `call_failed`
# event, whose value a call returns (call_failed(reason, exception=None,
# wrong_output=False)).
seed_all: Callable[[Any, int], None]
call_failed: Callable[..., int]


def sandbox_function(name, restype):
    """A function the sandbox program exports (src/sandbox/call_server.cc),
    taking no arguments; None outside hone's sandbox. hone_sandbox_mark_end:
    the model's forward has returned, and copying its results into hone's
    outputs is timed apart. hone_sandbox_rng_seed: the seed of this call's
    value set."""
    try:
        fn = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None
    fn.restype = restype
    fn.argtypes = []
    return fn


class _CudaArray:
    def __init__(self, ptr, shape, strides, typestr):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": typestr,
            "data": (ptr, False),
            "version": 2,
            "strides": tuple(strides),
        }


def _view(t):
    """A torch tensor over hone's buffer, without a copy (cached per buffer)."""
    s = state
    torch = s["torch"]
    shape = tuple(t.shape[d] for d in range(t.ndim))
    stride = tuple(t.stride[d] for d in range(t.ndim))
    key = (t.data, t.dtype, shape, stride)
    v = s["views"].get(key)
    if v is not None:
        return v
    name, size, typestr = DTYPES[t.dtype]
    dtype = getattr(torch, name)
    numel = 1
    for n in shape:
        numel *= n
    if numel == 0 or not t.data:
        v = torch.empty(shape, dtype=dtype, device=s["device"])
    elif s["cuda"]:
        raw = torch.as_tensor(
            _CudaArray(t.data, shape, [x * size for x in stride], typestr), device=s["device"]
        )
        v = raw.view(torch.bfloat16) if name == "bfloat16" else raw
    else:
        span = 1 + sum((n - 1) * st for n, st in zip(shape, stride))
        buf = (ctypes.c_byte * (span * size)).from_address(t.data)
        v = torch.frombuffer(buf, dtype=dtype, count=span).as_strided(shape, stride)
    s["views"][key] = v
    return v


def _flatten(x):
    if isinstance(x, (tuple, list)):
        out = []
        for e in x:
            out.extend(_flatten(e))
        return out
    return [x]


def _load_params(tensors):
    s = state
    names = s["param_names"]
    if not names or s["params_loaded"]:
        return
    s["params_loaded"] = True
    model = getattr(s["model"], "_orig_mod", s["model"])  # a torch.compile'd Model's module
    own = model.state_dict()
    if set(own.keys()) == set(names):
        with s["torch"].no_grad():
            model.load_state_dict(dict(zip(names, tensors)))
    else:
        # Different names: the candidate keeps the weights it was built with
        # under the model seed (KernelBench's own assumption).
        print(
            "hone compat: ModelNew's state_dict names differ from Model's; using the weights "
            "it was built with",
            file=sys.stderr,
        )


def _drawn_scalars():
    """The forward's Python scalar arguments that are not constants: hone
    draws them per value set and stores each as a one-element tensor."""
    s = state
    types, values = s["python_types"], s["python_values"]
    return [
        i
        for i in range(min(s["nf"], len(types)))
        if types[i] and not (i < len(values) and values[i])
    ]


def before_call(address):
    """Reads the call's drawn Python scalars before hone holds the stream,
    flushes the cache and starts its clock (the sandbox calls this first).
    Read inside the call, `.item()` would wait for the flush (and for a held
    call's hold) and be timed as the model's. Always 0: a scalar that cannot
    be read here is read by the call, which reports why it fails."""
    s = state
    s["prepared"] = None
    try:
        a = HoneArgs.from_address(address)
        s["prepared"] = (address, {i: _view(a.inputs[i]).item() for i in _drawn_scalars()})
    except Exception:
        pass
    return 0


def _forward_args(tensors, prepared):
    s = state
    args = []
    for i in range(s["nf"]):
        ptype = s["python_types"][i] if i < len(s["python_types"]) else ""
        if not ptype:
            args.append(tensors[i])
            continue
        const = s["python_values"][i] if i < len(s["python_values"]) else ""
        if const:
            value = json.loads(const)
        elif i in prepared:
            value = prepared[i]
        else:
            value = tensors[i].item()
        args.append({"float": float, "int": int, "bool": bool}[ptype](value))
    return args


def call(address):
    s = state
    torch = s["torch"]
    a = HoneArgs.from_address(address)
    # Read once: what hone_compat_before_call read for this very call.
    prepared = s.get("prepared")
    s["prepared"] = None
    prepared = prepared[1] if prepared is not None and prepared[0] == address else {}
    inputs = [_view(a.inputs[i]) for i in range(a.num_inputs)]
    outputs = [_view(a.outputs[i]) for i in range(a.num_outputs)]
    # hone times compat candidates on the legacy default stream (a.stream is
    # null), torch's default: the model runs on it as in a user's program.
    stream = None
    if s["cuda"] and a.stream:
        stream = s["streams"].get(a.stream)
        if stream is None:
            stream = torch.cuda.ExternalStream(a.stream, device=s["device"])
            s["streams"][a.stream] = stream
    with torch.no_grad(), torch.cuda.stream(stream) if stream is not None else _Null():
        _load_params(inputs[s["nf"] :])
        if s["seed"] is not None:  # the forward draws random numbers: as the oracle seeds it
            seed_all(torch, s["seed"]())
        if s["dps"]:
            with _ProfiledForward(torch, s["profiled"]):
                s["model"](*_forward_args(inputs, prepared), *outputs)
            if s["mark"] is not None:
                s["mark"]()
            return 0
        with _ProfiledForward(torch, s["profiled"]):
            result = _flatten(s["model"](*_forward_args(inputs, prepared)))
        if s["mark"] is not None:
            s["mark"]()
        if len(result) != len(outputs):
            return call_failed(
                f"ModelNew returned {len(result)} tensors, the task has " f"{len(outputs)} outputs"
            )
        for dst, src in zip(outputs, result):
            if not torch.is_tensor(src):
                src = torch.tensor(src)
            elif type(src) not in (torch.Tensor, torch.nn.Parameter):
                # A subclass's own code would run in the copy below, after
                # the timed span ended (a lazy tensor computing there).
                return call_failed(
                    f"ModelNew returned a {type(src).__name__}, a torch.Tensor "
                    f"subclass; return plain tensors"
                )
            if tuple(src.shape) != tuple(dst.shape):
                return call_failed(
                    f"ModelNew returned shape {tuple(src.shape)}, the task's "
                    f"output is {tuple(dst.shape)}",
                    wrong_output=True,
                )
            dst.copy_(src)
    return 0


class _ProfiledForward:
    """Starts and stops a profiler that waits for cudaProfilerStart around
    the model's forward: loading, the warm-up (autotuning, lazy builds) and
    the copy into hone's outputs stay out of the profile."""

    def __init__(self, torch, on):
        self.torch, self.on = torch, on

    def __enter__(self):
        if self.on:
            self.torch.cuda.synchronize()
            self.torch.cuda.profiler.start()

    def __exit__(self, *exc):
        if self.on:
            self.torch.cuda.synchronize()
            self.torch.cuda.profiler.stop()
        return False


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
