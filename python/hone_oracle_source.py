"""A problem file's source and what running it raises, for the oracle
(hone_oracle.py): module-level sizes scaled in its syntax tree
(`scale_source`, the size `POLICIES`), exceptions described by the problem
file's line (`describe_exception`), `Skip` for a problem that cannot run
here and why (`_skip_reason`, `_out_of_memory`), the seeds every draw runs
under (`_seed_all`, `derived_seed`), and forward arguments as the contract
carries them (`to_contract_tensor`).

torch is this module's global `torch`, set by hone_oracle.main(); of
hone's it imports only `OracleError` (hone_oracle_tensors.py).
"""

import ast
import hashlib
import random
import re
import sys
import traceback

from hone_oracle_tensors import OracleError

torch = None  # set by hone_oracle.main(), which imports it


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
