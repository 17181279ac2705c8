"""hone's compat runner: runs a KernelBench `ModelNew` file as a hone candidate.

This file is embedded by hone into a small generated shared object (the
"shim", src/run/compat_candidate.cc) that the untrusted sandbox loads like
any candidate. The shim starts an embedded Python, runs this source, calls
`hone_compat_load(config_json)` once while the candidate library loads
(before the sandbox's system-call filter), then `hone_compat_call(address)`
for every hone_forward call with the address of the C `hone_args`.

Everything here runs inside the sandbox, next to the candidate's code, and
is as untrusted as it is: hone verifies outputs and times calls from outside.
Return values: 0 for success; anything else is hone_forward's failure code.

The config (JSON) carries the problem's source, the candidate's source, the
size scale and model seed the oracle used, the device, how many inputs are
forward arguments and the state_dict() names of the rest, and the values of
constant Python-number arguments.
"""

import ast
import ctypes
import json
import os
import random
import sys
import types

MAX_DIMS = 8


class HoneTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("ndim", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_DIMS), ("stride", ctypes.c_int64 * MAX_DIMS)]


class HoneArgs(ctypes.Structure):
    _fields_ = [("inputs", ctypes.POINTER(HoneTensor)), ("num_inputs", ctypes.c_int32),
                ("outputs", ctypes.POINTER(HoneTensor)), ("num_outputs", ctypes.c_int32),
                ("stream", ctypes.c_void_p), ("workspace", ctypes.c_void_p),
                ("workspace_bytes", ctypes.c_size_t)]


# hone_dtype -> (torch dtype name, element bytes, __cuda_array_interface__ typestr)
DTYPES = {0: ("float32", 4, "<f4"), 1: ("float64", 8, "<f8"), 2: ("float16", 2, "<f2"),
          3: ("bfloat16", 2, "<i2"), 4: ("int8", 1, "|i1"), 5: ("uint8", 1, "|u1"),
          6: ("int16", 2, "<i2"), 7: ("int32", 4, "<i4"), 8: ("int64", 8, "<i8"),
          9: ("bool", 1, "|b1")}

_state = {}


def _seed_all(torch, seed):
    torch.manual_seed(seed)
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % (1 << 32))


def _int_value(node):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _scale_module(tree, sizes):
    """Gives module-level integer sizes the values the oracle ran the problem
    with (`sizes`: name -> value). Other integers (a kernel's BLOCK = 256)
    are left alone."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            v = _int_value(node.value)
            if v is None:
                continue
            if name in sizes:
                node.value = ast.copy_location(ast.Constant(sizes[name]), node.value)
    return tree


def _exec_source(source, path, name, sizes):
    tree = _scale_module(ast.parse(source, filename=path), sizes)
    mod = types.ModuleType(name)
    mod.__file__ = path
    sys.modules[name] = mod
    exec(compile(tree, path, "exec"), mod.__dict__)
    return mod


def hone_compat_load(config_json):
    cfg = json.loads(config_json)
    sys.argv = ["hone-compat"]
    scratch = os.getcwd()
    os.environ.setdefault("TORCH_EXTENSIONS_DIR", os.path.join(scratch, "torch_extensions"))
    os.environ.setdefault("MAX_JOBS", str(os.cpu_count() or 2))
    import torch
    device = cfg["device"]
    sizes = {k: int(v) for k, v in cfg.get("sizes", {}).items()}
    problem = _exec_source(cfg["problem_source"], cfg["problem_path"], "hone_compat_problem",
                           sizes)
    seed = int(cfg.get("model_seed", 0))
    _seed_all(torch, seed)
    init = problem.get_init_inputs()
    candidate = _exec_source(cfg["candidate_source"], cfg["candidate_path"],
                             "hone_compat_candidate", sizes)
    if not hasattr(candidate, "ModelNew"):
        raise RuntimeError(f"{cfg['candidate_path']}: no class ModelNew (KernelBench format)")
    _seed_all(torch, seed)
    model = candidate.ModelNew(*init)
    if not isinstance(model, torch.nn.Module):
        raise RuntimeError(f"{cfg['candidate_path']}: ModelNew is not a torch.nn.Module")
    model = model.to(device)
    _state.update(torch=torch, model=model, device=device, cuda=device.startswith("cuda"),
                  nf=int(cfg["num_forward_args"]), param_names=cfg.get("param_names", []),
                  python_types=cfg.get("python_types", []),
                  python_values=cfg.get("python_values", []), views={}, streams={},
                  params_loaded=False)
    return 0


class _CudaArray:
    def __init__(self, ptr, shape, strides, typestr):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr,
                                         "data": (ptr, False), "version": 2,
                                         "strides": tuple(strides)}


def _view(t):
    """A torch tensor over hone's buffer, without a copy (cached per buffer)."""
    s = _state
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
        raw = torch.as_tensor(_CudaArray(t.data, shape, [x * size for x in stride], typestr),
                              device=s["device"])
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
    s = _state
    names = s["param_names"]
    if not names or s["params_loaded"]:
        return
    s["params_loaded"] = True
    own = s["model"].state_dict()
    if set(own.keys()) == set(names):
        with s["torch"].no_grad():
            s["model"].load_state_dict(dict(zip(names, tensors)))
    else:
        # Different names: the candidate keeps the weights it was built with
        # under the model seed (KernelBench's own assumption).
        print("hone compat: ModelNew's state_dict names differ from Model's; using the weights "
              "it was built with", file=sys.stderr)


def _forward_args(tensors):
    s = _state
    args = []
    for i in range(s["nf"]):
        ptype = s["python_types"][i] if i < len(s["python_types"]) else ""
        if not ptype:
            args.append(tensors[i])
            continue
        const = s["python_values"][i] if i < len(s["python_values"]) else ""
        value = json.loads(const) if const else tensors[i].item()
        args.append({"float": float, "int": int, "bool": bool}[ptype](value))
    return args


def hone_compat_call(address):
    s = _state
    torch = s["torch"]
    a = HoneArgs.from_address(address)
    inputs = [_view(a.inputs[i]) for i in range(a.num_inputs)]
    outputs = [_view(a.outputs[i]) for i in range(a.num_outputs)]
    stream = None
    if s["cuda"]:
        stream = s["streams"].get(a.stream)
        if stream is None:
            stream = torch.cuda.ExternalStream(a.stream, device=s["device"])
            s["streams"][a.stream] = stream
    with torch.no_grad(), (torch.cuda.stream(stream) if stream is not None else _Null()):
        _load_params(inputs[s["nf"]:])
        result = _flatten(s["model"](*_forward_args(inputs)))
        if len(result) != len(outputs):
            print(f"hone compat: ModelNew returned {len(result)} tensors, the task has "
                  f"{len(outputs)} outputs", file=sys.stderr)
            return 2
        for dst, src in zip(outputs, result):
            if not torch.is_tensor(src):
                src = torch.tensor(src)
            if tuple(src.shape) != tuple(dst.shape):
                print(f"hone compat: ModelNew returned shape {tuple(src.shape)}, the task's "
                      f"output is {tuple(dst.shape)}", file=sys.stderr)
                return 3
            dst.copy_(src)
    return 0


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
