"""hone's static rules for ModelNew files (load_inline CUDA/C++ and Triton),
read from Python's own syntax tree, never by running the file. Called by
hone_pyscan.py; its findings go into the scan's reply, and hone decides on
the C++ side which reject and which only warn (src/lang/: each language's
rule table).

A finding is {"rule", "line", "token", "detail"}. The rules:

- timing: replacing a clock, a CUDA event's method, a synchronisation or a
  benchmarking helper (torch.cuda.Event.elapsed_time = ..., time.perf_counter
  = ..., setattr(torch.cuda, "synchronize", ...)), or the functions an
  evaluator compares outputs with (torch.allclose = ...): aimed at harnesses
  that time and check inside the candidate's process.
- host-thread: Python threads and thread pools (threading, concurrent.futures),
  which can carry work past the end of a call.
- process: processes (subprocess, multiprocessing, os.system, os.fork).
- network: sockets and HTTP clients.
- lazy-tensor: torch.Tensor subclasses and _make_subclass, whose code would
  run when hone copies a result out, after the timed span.
- fallback: a try block whose handler computes with PyTorch: when the
  kernel fails to build or launch, the file quietly returns torch's answer.
- torch-compute: forward (or a function of this file it calls) computes with
  PyTorch operators (torch.matmul, F.conv2d, an nn.Linear layer ...) beside
  its own kernels.

Standard library only (Python 3.8+); any input tree is fine.
"""

import ast

from hone_pyimports import dotted

# Dotted paths whose replacement changes what a timer or a checker in the
# same process reports.
TIMING_PATHS = {
    "torch.cuda.Event",
    "torch.cuda.Event.record",
    "torch.cuda.Event.elapsed_time",
    "torch.cuda.Event.synchronize",
    "torch.cuda.Event.query",
    "torch.cuda.Event.wait",
    "torch.cuda.synchronize",
    "torch.cuda.Stream.synchronize",
    "torch.cuda.current_stream",
    "torch.cuda.default_stream",
    "torch.cuda.Stream",
    "torch.cuda.stream",
    "torch.cuda.event",
    "torch.cuda.streams.Event",
    "torch.cuda.streams.Stream",
    "torch.cuda.Event.__init__",
    "torch.utils.benchmark.Timer",
    "time.perf_counter",
    "time.perf_counter_ns",
    "time.time",
    "time.time_ns",
    "time.monotonic",
    "time.monotonic_ns",
    "time.process_time",
    "time.sleep",
    "triton.testing.do_bench",
    "triton.testing.do_bench_cudagraph",
    "torch.allclose",
    "torch.equal",
    "torch.isclose",
    "torch.testing.assert_close",
    "torch.testing.assert_allclose",
    "torch.Tensor.__eq__",
    "torch.Tensor.allclose",
    "numpy.allclose",
    "numpy.testing.assert_allclose",
}

THREAD_CALLS = (
    "threading.Thread",
    "threading.Timer",
    "_thread.start_new_thread",
    "concurrent.futures.ThreadPoolExecutor",
)
PROCESS_CALLS = (
    "subprocess.",
    "multiprocessing.",
    "concurrent.futures.ProcessPoolExecutor",
    "os.system",
    "os.popen",
    "os.fork",
    "os.spawn",
    "os.exec",
    "pty.spawn",
)
NETWORK_CALLS = (
    "socket.",
    "urllib.request.",
    "requests.",
    "http.client.",
    "httpx.",
    "aiohttp.",
    "ftplib.",
    "smtplib.",
)

# PyTorch operators that do a kernel's work (not tensor creation, views,
# shape arithmetic or dtype casts).
TORCH_COMPUTE = {
    "mm",
    "bmm",
    "matmul",
    "einsum",
    "addmm",
    "baddbmm",
    "addbmm",
    "mv",
    "dot",
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "relu",
    "relu_",
    "relu6",
    "hardtanh",
    "elu",
    "selu",
    "celu",
    "leaky_relu",
    "gelu",
    "softsign",
    "softplus",
    "softmax",
    "log_softmax",
    "tanh",
    "sigmoid",
    "hardsigmoid",
    "hardswish",
    "silu",
    "mish",
    "batch_norm",
    "group_norm",
    "layer_norm",
    "instance_norm",
    "rms_norm",
    "normalize",
    "cross_entropy",
    "kl_div",
    "mse_loss",
    "l1_loss",
    "nll_loss",
    "smooth_l1_loss",
    "huber_loss",
    "triplet_margin_loss",
    "cosine_similarity",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "logsumexp",
    "cumsum",
    "cumprod",
    "dropout",
    "scaled_dot_product_attention",
    "multi_head_attention_forward",
    "embedding",
    "interpolate",
    "pixel_shuffle",
    "unfold",
    "fold",
    "pad",
    "cdist",
    "pdist",
    "lstm",
    "gru",
    "rnn_tanh",
}
# Element-wise and reduction operators, counted in their torch.* form only
# (as tensor methods, x.sum() and x.max() are as often shape bookkeeping).
TORCH_ELEMENTWISE = {
    "sum",
    "mean",
    "var",
    "std",
    "prod",
    "norm",
    "exp",
    "exp2",
    "log",
    "log2",
    "pow",
    "sqrt",
    "rsqrt",
    "abs",
    "clamp",
    "clip",
    "maximum",
    "minimum",
    "where",
    "erf",
    "sort",
    "topk",
    "argmax",
    "argmin",
    "amax",
    "amin",
    "sin",
    "cos",
    "reciprocal",
    "square",
    "mul",
    "add",
    "sub",
    "div",
    "addcmul",
    "addcdiv",
    "lerp",
    "tril",
    "triu",
    "diag",
    "outer",
    "kron",
}
COMPUTE_MODULES = (
    "torch.",
    "torch.nn.functional.",
    "torch.special.",
    "torch.linalg.",
    "torch.fft.",
)
# nn layers that compute (containers, Parameter, init and the like do not).
NN_PLAIN = {
    "Module",
    "ModuleList",
    "ModuleDict",
    "Parameter",
    "ParameterList",
    "ParameterDict",
    "Sequential",
    "Identity",
    "Flatten",
    "Unflatten",
    "init",
}


def _finding(rule, node, token, detail):
    return {"rule": rule, "line": getattr(node, "lineno", 0), "token": token, "detail": detail}


def _string(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _timing(tree, names):
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            path = dotted(t, names) if isinstance(t, ast.Attribute) else None
            if path in TIMING_PATHS:
                out.append(
                    _finding(
                        "timing",
                        node,
                        path,
                        "replaces %s, which timers and checkers in this process " "rely on" % path,
                    )
                )
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and len(node.args) >= 2
        ):
            owner, attr = dotted(node.args[0], names), _string(node.args[1])
            if owner and attr and owner + "." + attr in TIMING_PATHS:
                path = owner + "." + attr
                out.append(
                    _finding(
                        "timing",
                        node,
                        "setattr(%s, '%s')" % (owner, attr),
                        "replaces %s, which timers and checkers in this process " "rely on" % path,
                    )
                )
    return out


def _calls_of(tree, names, prefixes, rule, what):
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            path = dotted(node.func, names) or ""
            if any(path == p or (p.endswith(".") and path.startswith(p)) for p in prefixes):
                out.append(_finding(rule, node, path, what))
    return out


def _lazy_tensor(tree, names):
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for b in node.bases:
                if dotted(b, names) in (
                    "torch.Tensor",
                    "torch._C._TensorBase",
                    "torch._C.TensorBase",
                ):
                    out.append(
                        _finding(
                            "lazy-tensor",
                            node,
                            "class %s(torch.Tensor)" % node.name,
                            "a torch.Tensor subclass: its code runs when its values "
                            "are read, outside the timed call",
                        )
                    )
        elif isinstance(node, ast.Attribute) and node.attr == "_make_subclass":
            out.append(
                _finding(
                    "lazy-tensor", node, "_make_subclass", "makes a torch.Tensor subclass instance"
                )
            )
    return out


def _compute_call(node, names, layers):
    """The torch operator `node` calls (a name for messages), or None."""
    if not isinstance(node, ast.Call):
        return None
    path = dotted(node.func, names) or ""
    for prefix in COMPUTE_MODULES:
        op = path[len(prefix) :] if path.startswith(prefix) else None
        if op in TORCH_COMPUTE or (prefix == "torch." and op in TORCH_ELEMENTWISE):
            return path
    parts = path.split(".")
    if (
        len(parts) == 3
        and parts[:2] == ["torch", "nn"]
        and parts[2] not in NN_PLAIN
        and parts[2][:1].isupper()
    ):
        return path  # nn.ReLU()(x), built and called in place
    # self.layer(x) where __init__ set self.layer = nn.Linear(...)
    f = node.func
    if (
        isinstance(f, ast.Attribute)
        and isinstance(f.value, ast.Name)
        and f.value.id == "self"
        and f.attr in layers
    ):
        return "self.%s (%s)" % (f.attr, layers[f.attr])
    # x.relu(), x.softmax(dim=1): tensor methods of the same operators
    if (
        isinstance(f, ast.Attribute)
        and f.attr in TORCH_COMPUTE
        and f.attr not in ("dropout", "pad", "unfold", "fold")
        and not (dotted(f.value, names) or "").startswith(("tl.", "triton."))
    ):
        root = f.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if not (
            isinstance(root, ast.Name)
            and names.get(root.id, root.id).split(".")[0] in ("triton", "math", "numpy", "np")
        ):
            return "." + f.attr + "()"
    return None


def _layers(cls, names):
    """self.NAME = nn.Layer(...) in a class body's methods: NAME -> nn.Layer."""
    layers = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            path = dotted(node.value.func, names) or ""
            if (
                path.startswith("torch.nn.")
                and path.split(".")[-1] not in NN_PLAIN
                and path.split(".")[-1][:1].isupper()
            ):
                for t in node.targets:
                    if (
                        isinstance(t, ast.Attribute)
                        and isinstance(t.value, ast.Name)
                        and t.value.id == "self"
                    ):
                        layers[t.attr] = path
    return layers


def _functions(tree):
    return {
        n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _reached_from(forward, functions, jit_names):
    """forward and the functions of this file it calls, transitively (not
    Triton kernels, whose bodies are not PyTorch)."""
    seen, todo = [], [forward]
    while todo:
        fn = todo.pop()
        if fn in seen:
            continue
        seen.append(fn)
        for node in ast.walk(fn):
            if isinstance(node, ast.Call):
                f = node.func
                name = (
                    f.id
                    if isinstance(f, ast.Name)
                    else f.attr
                    if isinstance(f, ast.Attribute)
                    and isinstance(f.value, ast.Name)
                    and f.value.id == "self"
                    else None
                )
                if name in functions and name not in jit_names:
                    todo.append(functions[name])
    return seen


def _model_new_class(tree):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "ModelNew":
            return node
    return None


def _torch_compute(tree, names, jit_names):
    cls = _model_new_class(tree)
    if cls is None:
        return []
    forward = next(
        (
            n
            for n in cls.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "forward"
        ),
        None,
    )
    if forward is None:
        return []
    functions = _functions(tree)
    functions.update({n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)})
    layers = _layers(cls, names)
    out, seen_lines = [], set()
    for fn in _reached_from(forward, functions, jit_names):
        for node in ast.walk(fn):
            op = _compute_call(node, names, layers)
            if op and node.lineno not in seen_lines and not _in_except(fn, node):
                seen_lines.add(node.lineno)
                out.append(
                    _finding(
                        "torch-compute",
                        node,
                        op,
                        "forward computes with PyTorch (%s) beside its own kernels" % op,
                    )
                )
    return out


def _in_except(fn, target):
    for node in ast.walk(fn):
        if isinstance(node, ast.ExceptHandler):
            for inner in ast.walk(node):
                if inner is target:
                    return True
    return False


def _fallback(tree, names):
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        for handler in node.handlers:
            op = None
            for inner in ast.walk(handler):
                op = _compute_call(inner, names, {}) if isinstance(inner, ast.Call) else None
                if op:
                    break
            if op:
                out.append(
                    _finding(
                        "fallback",
                        node,
                        "try ... except: %s" % op,
                        "when the code in its try block raises (a kernel that does "
                        "not build or launch), the handler at line %d computes with "
                        "PyTorch instead (%s)" % (handler.lineno, op),
                    )
                )
                break
    return out


def findings(tree, names, jit_names=()):
    """Every finding in `tree`, in line order. `names`: the file's import map
    (alias -> dotted path); `jit_names`: its Triton kernels."""
    out = _timing(tree, names)
    out += _calls_of(
        tree,
        names,
        THREAD_CALLS,
        "host-thread",
        "starts a host thread, which can carry work past the end of a call",
    )
    out += _calls_of(tree, names, PROCESS_CALLS, "process", "starts a process")
    out += _calls_of(tree, names, NETWORK_CALLS, "network", "opens a network connection")
    out += _lazy_tensor(tree, names)
    out += _fallback(tree, names)
    out += _torch_compute(tree, names, set(jit_names))
    out.sort(key=lambda f: (f["line"], f["rule"]))
    return out
