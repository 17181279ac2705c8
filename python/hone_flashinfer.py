"""What hone's FlashInfer-Trace files run: a definition's inputs drawn as
its workload says, a reference's or a solution's results in output order,
and a destination-passing solution's outputs allocated from the inputs'
shapes.

hone copies this file's text into the KernelBench-format problem and
ModelNew files it writes for a FlashInfer-Trace definition and solution
(src/format/flashinfer_codegen.cc), so that they import nothing of hone's
and run alike in the oracle and in the sandbox. `fi` is the dictionary
those files hold: {"definition": {name, op_type, axes, inputs, outputs},
"workload": {uuid, axes, inputs}, "root": the dataset folder}, with
`inputs` and `outputs` as lists of [name, spec] in the definition's order.

The random draws follow the format's own harness (standard normal floats,
integers in [-1024, 1024), int8 over its range, bool 0/1, probabilities for
a sampling operator's `probs`); hone seeds them per value set.
"""
import json as _hone_json
import math as _hone_math
import struct as _hone_struct

import torch as _hone_torch

_HONE_FI_DTYPES = {
    "float32": _hone_torch.float32,
    "float16": _hone_torch.float16,
    "bfloat16": _hone_torch.bfloat16,
    "float64": _hone_torch.float64,
    "int64": _hone_torch.int64,
    "int32": _hone_torch.int32,
    "int16": _hone_torch.int16,
    "int8": _hone_torch.int8,
    "uint8": _hone_torch.uint8,
    "bool": _hone_torch.bool,
}
_HONE_FI_SAFETENSORS_DTYPES = {
    "F32": "float32",
    "F16": "float16",
    "BF16": "bfloat16",
    "F64": "float64",
    "I64": "int64",
    "I32": "int32",
    "I16": "int16",
    "I8": "int8",
    "U8": "uint8",
    "BOOL": "bool",
}


# The functions an `expr` axis may call: those hone's own expressions know
# (src/core/expr.h), which check the definition before it runs here.
_HONE_FI_EXPR_FUNCTIONS = {
    "min": min,
    "max": max,
    "ceil": _hone_math.ceil,
    "floor": _hone_math.floor,
    "sqrt": _hone_math.sqrt,
    "ceildiv": lambda a, b: -(-a // b),
}


def _hone_fi_expr(text, axes):
    """An `expr` axis: integer arithmetic over the other axes, in Python as
    SOL-ExecBench writes it (`//`, `%`, `**`, min, max; and ceil, floor, sqrt,
    ceildiv, which hone's checker of the definition also accepts)."""
    value = eval(
        compile(text, "<axis expression>", "eval"),
        {"__builtins__": {}, **_HONE_FI_EXPR_FUNCTIONS},
        dict(axes),
    )
    if isinstance(value, float):
        if value != int(value):
            raise ValueError(f"axis expression '{text}' is not a whole number ({value})")
        value = int(value)
    return int(value)


def _hone_fi_axes(fi, known=None):
    """Every axis's size: const values, then the workload's (or `known`)
    var values, then expressions over them."""
    axes, exprs = {}, []
    for name, spec in fi["definition"]["axes"]:
        kind = spec.get("type")
        if kind == "const":
            axes[name] = int(spec["value"])
        elif kind == "expr":
            exprs.append((name, spec["expression"]))
    source = known if known is not None else fi["workload"]["axes"]
    for name, value in source.items():
        axes[name] = int(value)
    for _ in range(len(exprs)):
        for name, text in exprs:
            if name not in axes:
                try:
                    axes[name] = _hone_fi_expr(text, axes)
                except NameError:
                    pass
    return axes


def _hone_fi_shape(spec, axes):
    return [int(a) if str(a).isdigit() else axes[a] for a in spec["shape"]]


def _hone_fi_random(name, dtype, shape, op_type):
    t = _HONE_FI_DTYPES[dtype]
    if t.is_floating_point:
        x = _hone_torch.randn(shape, dtype=_hone_torch.float32)
        if op_type == "sampling" and name == "probs":
            x = _hone_torch.softmax(x, dim=-1)
        return x.to(t)
    if t == _hone_torch.bool:
        return _hone_torch.randint(0, 2, shape, dtype=_hone_torch.int64).bool()
    if t == _hone_torch.int8:
        return _hone_torch.randint(-128, 128, shape, dtype=t)
    if t == _hone_torch.uint8:
        return _hone_torch.randint(0, 256, shape, dtype=t)
    return _hone_torch.randint(-1024, 1024, shape, dtype=t)


def _hone_fi_safetensors(path, key):
    """One tensor of a .safetensors file (an 8-byte header length, a JSON
    header, then the data), read without the safetensors package."""
    with open(path, "rb") as f:
        (n,) = _hone_struct.unpack("<Q", f.read(8))
        header = _hone_json.loads(f.read(n))
        if key not in header:
            raise KeyError(
                f"{path}: no tensor '{key}' (it holds "
                f"{', '.join(k for k in header if k != '__metadata__')})"
            )
        entry = header[key]
        begin, end = entry["data_offsets"]
        f.seek(8 + n + begin)
        data = bytearray(f.read(end - begin))
    dtype = _HONE_FI_SAFETENSORS_DTYPES.get(entry["dtype"])
    if dtype is None:
        raise TypeError(
            f"{path}: tensor '{key}' has dtype {entry['dtype']}, which hone does not read"
        )
    t = _HONE_FI_DTYPES[dtype]
    if not data:
        return _hone_torch.empty(entry["shape"], dtype=t), dtype
    return _hone_torch.frombuffer(data, dtype=t).reshape(entry["shape"]).clone(), dtype


def _hone_fi_stored(fi, name, spec, source, shape):
    import os

    path = source["path"]
    copy = fi.get("stored", {}).get(path)
    if copy:  # hone's copy beside the problem file (the sandbox reads no dataset folder)
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), copy)
    elif not os.path.isabs(path):
        path = os.path.join(fi["root"], path)
    t, dtype = _hone_fi_safetensors(path, source["tensor_key"])
    if list(t.shape) != shape or dtype != spec["dtype"]:
        raise ValueError(
            f"input '{name}': {path} holds {dtype} {list(t.shape)}, the definition "
            f"asks for {spec['dtype']} {shape}"
        )
    return t


def _hone_fi_scalar(name, spec, source):
    dtype = spec["dtype"]
    if source.get("type") == "scalar":
        value = source["value"]
    elif dtype.startswith("float") or dtype.startswith("bfloat"):
        value = float(_hone_torch.randn(()).item())
    elif dtype == "bool":
        value = bool(_hone_torch.randint(0, 2, ()).item())
    else:
        value = int(_hone_torch.randint(-1024, 1024, ()).item())
    if dtype == "bool":
        return bool(value)
    if dtype.startswith("int") or dtype.startswith("uint"):
        return int(value)
    return float(value)


def _hone_fi_custom(fi, axes):
    """SOL-ExecBench's custom inputs: the definition's
    custom_inputs_entrypoint, a function of its reference (in this module),
    called as fn(axes_and_scalars, device) under hone's seed, returns the
    inputs by name. None when the workload has no custom input."""
    sources = fi["workload"]["inputs"]
    if not any((s or {}).get("type") == "custom" for s in sources.values()):
        return None
    entry = fi["definition"].get("custom_inputs_entrypoint") or ""
    fn = globals().get(entry)
    if not callable(fn):
        raise ValueError(
            f"the workload's custom inputs need the definition's "
            f"custom_inputs_entrypoint '{entry}', which its reference does not define"
        )
    known = dict(axes)
    for name, source in sources.items():
        if (source or {}).get("type") == "scalar":
            known[name] = source["value"]
    # The device the draw is made on (hone's oracle draws under one).
    made = fn(known, _hone_torch.empty(()).device)
    if not isinstance(made, dict):
        raise TypeError(f"{entry}() returned {type(made).__name__}, not a dict of inputs by name")
    return made


def _hone_fi_inputs(fi):
    """The inputs of one draw, in the definition's order."""
    axes = _hone_fi_axes(fi)
    op_type = fi["definition"].get("op_type", "")
    custom = _hone_fi_custom(fi, axes)
    out = []
    for name, spec in fi["definition"]["inputs"]:
        source = fi["workload"]["inputs"].get(name) or {"type": "random"}
        if source.get("type") == "custom":
            if name not in custom:
                raise ValueError(
                    f"custom_inputs_entrypoint gave no input '{name}' (it gave "
                    f"{', '.join(custom) or 'none'})"
                )
            out.append(custom[name])
            continue
        if spec.get("shape") is None:
            out.append(_hone_fi_scalar(name, spec, source))
            continue
        shape = _hone_fi_shape(spec, axes)
        if source.get("type") == "safetensors":
            out.append(_hone_fi_stored(fi, name, spec, source, shape))
        elif source.get("type") == "scalar":
            out.append(
                _hone_torch.full(shape, source["value"], dtype=_HONE_FI_DTYPES[spec["dtype"]])
            )
        else:
            out.append(_hone_fi_random(name, spec["dtype"], shape, op_type))
    return out


def _hone_fi_outputs(result, fi):
    """A reference's or a value-returning solution's result as the tuple of
    the definition's outputs (one tensor alone): a tensor, a tuple or list in
    output order, or a dict by output name; numbers become 0-d tensors."""
    outputs = fi["definition"]["outputs"]
    if isinstance(result, dict):
        missing = [n for n, _ in outputs if n not in result]
        if missing:
            raise ValueError(f"the result has no output {', '.join(missing)}")
        result = [result[n] for n, _ in outputs]
    elif not isinstance(result, (tuple, list)):
        result = [result]
    if len(result) != len(outputs):
        raise ValueError(
            f"the result has {len(result)} values, the definition "
            f"{len(outputs)} outputs ({', '.join(n for n, _ in outputs)})"
        )
    out = []
    for value, (name, spec) in zip(result, outputs):
        if not _hone_torch.is_tensor(value):
            value = _hone_torch.tensor(value, dtype=_HONE_FI_DTYPES[spec["dtype"]])
        out.append(value)
    return out[0] if len(out) == 1 else tuple(out)


def _hone_fi_var_axes(fi, inputs):
    """The var axes' sizes, read from the inputs' shapes (the first input
    that has each)."""
    known = {}
    const = {n for n, s in fi["definition"]["axes"] if s.get("type") != "var"}
    for (name, spec), value in zip(fi["definition"]["inputs"], inputs):
        if spec.get("shape") is None or not _hone_torch.is_tensor(value):
            continue
        for axis, size in zip(spec["shape"], value.shape):
            if not str(axis).isdigit() and axis not in const and axis not in known:
                known[axis] = int(size)
    return known


def _hone_fi_output_specs(fi, inputs):
    """Each output's shape and torch dtype, the var axes read from the inputs."""
    axes = _hone_fi_axes(fi, _hone_fi_var_axes(fi, inputs))
    return [
        (
            _hone_fi_shape(spec, axes) if spec.get("shape") is not None else [],
            _HONE_FI_DTYPES[spec["dtype"]],
        )
        for _, spec in fi["definition"]["outputs"]
    ]


def _hone_fi_allocate(fi, inputs):
    """Outputs for a destination-passing call hone did not give any (the
    warm-up call as the module loads): empty, on the inputs' device."""
    device = next((x.device for x in inputs if _hone_torch.is_tensor(x)), "cpu")
    return [
        _hone_torch.empty(shape, dtype=dtype, device=device)
        for shape, dtype in _hone_fi_output_specs(fi, inputs)
    ]


def _hone_fi_checked(result, inputs, fi):
    """A value-returning solution's outputs, checked against the definition:
    shape and dtype exactly (the format's INCORRECT_SHAPE, INCORRECT_DTYPE);
    hone would otherwise convert them as it copies."""
    outs = result if isinstance(result, tuple) else (result,)
    expected = _hone_fi_output_specs(fi, inputs)
    for value, (shape, dtype), (name, _) in zip(outs, expected, fi["definition"]["outputs"]):
        if list(value.shape) != list(shape):
            raise ValueError(
                f"output '{name}' has the wrong shape: {list(value.shape)}, the "
                f"definition's is {list(shape)}"
            )
        if value.dtype != dtype:
            raise TypeError(
                f"output '{name}' has the wrong dtype: {value.dtype}, the "
                f"definition's is {dtype}"
            )
    return result
