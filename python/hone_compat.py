"""hone's compat runner: runs a KernelBench `ModelNew` file as a hone candidate.

This file is embedded by hone into a small generated shared object (the
"shim", src/compat/compat_candidate.cc) that the untrusted sandbox loads like
any candidate. The shim starts an embedded Python, runs this source, calls
`hone_compat_load(config_json)` once while the candidate library loads
(before the sandbox's system-call filter), then `hone_compat_call(address)`
for every hone_forward call with the address of the C `hone_args`; the
call's work is python/hone_compat_call.py's, embedded in the config. A warm
sandbox (src/process/warm_pool.h) has already run this source and
`hone_compat_prewarm()` before its candidate was known; the shim then finds
Python started and torch imported.

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
import glob
import json
import linecache
import os
import random
import sys
import traceback
import types
from typing import Any, Dict, Optional, Protocol, Set


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
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            name = node.targets[0].id
            v = _int_value(node.value)
            if v is None:
                continue
            if name in sizes:
                node.value = ast.copy_location(ast.Constant(sizes[name]), node.value)
    return tree


def _keep_source(path, source):
    """Makes `source` what inspect and traceback read for `path`: decorators
    that read their function's source (@triton.jit, at import) and
    tracebacks then work although the sandbox cannot open the file. An
    entry without a modification time is never dropped by
    linecache.checkcache."""
    linecache.cache[path] = (len(source), None, source.splitlines(True), path)


def _exec_source(source, path, name, sizes):
    tree = _scale_module(ast.parse(source, filename=path), sizes)
    mod = types.ModuleType(name)
    mod.__file__ = path
    sys.modules[name] = mod
    _keep_source(path, source)
    _own_files.add(path)
    exec(compile(tree, path, "exec"), mod.__dict__)
    return mod


def _event(kind, **fields):
    """A line hone reads from the sandbox's output to explain a verdict
    (untrusted, like everything here: it only adds words)."""
    fields["event"] = kind
    print("hone-compat-event: " + json.dumps(fields, default=str), file=sys.stderr, flush=True)


# The files whose lines a verdict may name: the problem's and the candidate's.
_own_files: Set[str] = set()
MAX_MESSAGE = 3000


def describe_exception(e, files=None):
    """What a verdict says of an exception: its type, its message, and the
    innermost line of the problem's or the candidate's own file it passed
    through (file, line, function, the code there), so that a failure names
    the user's line rather than torch's or Triton's."""
    files = _own_files if files is None else files
    message = str(e)
    cause = e.__cause__ or e.__context__
    if cause is not None and str(cause) and str(cause) not in message:
        # Triton's CompilationError points at the kernel's line; its cause says what is wrong.
        message += f"\n{type(cause).__name__}: {cause}"
    out = {
        "type": type(e).__name__,
        "module": type(e).__module__ or "",
        "message": message[-MAX_MESSAGE:],
    }
    where = None
    for frame, line in traceback.walk_tb(e.__traceback__):
        if frame.f_code.co_filename in files:
            where = (frame, line)
    if where is None:
        # Caught on its way up (a compilation a wrapper reports before the
        # file's own handler sees it): the file's innermost caller instead.
        frame = sys._getframe(1)
        while frame is not None and where is None:
            if frame.f_code.co_filename in files:
                where = (frame, frame.f_lineno)
            frame = frame.f_back
    if where is not None:
        frame, line = where
        path = frame.f_code.co_filename
        out.update(
            file=path,
            line=line,
            function=frame.f_code.co_name,
            code=linecache.getline(path, line).strip()[:200],
        )
    return out


# hone_compat_call's return value when ModelNew raised or returned what
# hone cannot take; a `call_failed` event says which (src/compat/compat_candidate.h).
CALL_FAILED = 5


def _call_failed(reason, exception=None, wrong_output=False):
    """`wrong_output`: the forward ran and returned something the task's
    outputs cannot be (KernelBench's "Output shape mismatch"): incorrect,
    not an error."""
    fields = {"reason": reason}
    if wrong_output:
        fields["wrong_output"] = True
    if exception is not None:
        fields.update(describe_exception(exception))
    _event("call_failed", **fields)
    return CALL_FAILED


def _load_extbuild(cfg):
    """hone_extbuild (python/hone_extbuild.py), embedded in the config: the
    hook that gives load_inline hone's prebuilt extensions."""
    source = cfg.get("extbuild_source")
    if not source:
        return None
    return _embedded_module("hone_extbuild", source, "hone_extbuild.py")


def _out_of_memory(torch, e):
    oom = getattr(torch.cuda, "OutOfMemoryError", None)
    return (oom is not None and isinstance(e, oom)) or "out of memory" in str(e)


def _draw_inputs(torch, problem, device):
    """get_inputs() on the device (as hone's oracle draws them), else on the
    CPU and moved. Out of device memory, it raises at once: drawing a
    full-size input on the CPU takes seconds per gigabyte, and moving it
    would meet the same shortage."""
    if device.startswith("cuda") and hasattr(torch.device(device), "__enter__"):
        try:
            with torch.device(device):
                args = problem.get_inputs()
            return [a.to(device) if torch.is_tensor(a) else a for a in args]
        except Exception as e:
            if _out_of_memory(torch, e):
                raise
    return [a.to(device) if torch.is_tensor(a) else a for a in problem.get_inputs()]


def _construct(torch, cls, init, seed, device, on_device):
    """The model, built under the model seed. A baseline (the problem's own
    Model) gets the task's weights at its first call (_load_params), so it
    is built on the device, where initialising a large layer takes
    milliseconds instead of seconds (level3/2_ShallowWideMLP: 12 s on the
    CPU). A candidate is built on the CPU, as KernelBench builds it: a
    ModelNew whose parameters are named otherwise keeps the weights it was
    built with, which must be the oracle's."""
    if on_device and device.startswith("cuda") and hasattr(torch.device(device), "__enter__"):
        try:
            _seed_all(torch, seed)
            with torch.device(device):
                return cls(*init)
        except Exception as e:
            if _out_of_memory(torch, e):
                raise
    _seed_all(torch, seed)
    return cls(*init)


def _warm_up(torch, model, problem, device, seed):
    """The first call, made while the module loads (before the sandbox's
    system-call filter): lazy load_inline builds in forward, torch.compile's
    compilation and first-call initialisation happen here, where compilers
    may run. Its result is thrown away; a failure is reported and left for
    the first real call to meet again."""
    try:
        _seed_all(torch, seed)
        args = _draw_inputs(torch, problem, device)
        with torch.no_grad():
            model(*args)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        _event("warm_up", ok=True)
    except Exception as e:
        _event(
            "warm_up", ok=False, error=f"{type(e).__name__}: {e}"[-2000:], **describe_exception(e)
        )
    finally:
        args = None
        if device.startswith("cuda"):
            torch.cuda.empty_cache()


def _environment():
    sys.argv = ["hone-compat"]
    scratch = os.getcwd()
    os.environ.setdefault("TORCH_EXTENSIONS_DIR", os.path.join(scratch, "torch_extensions"))
    os.environ.setdefault("MAX_JOBS", str(os.cpu_count() or 2))
    # torch.compile's workers would be processes, which the sandbox forbids
    # once loaded; compile in this one.
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(scratch, "inductor"))
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(scratch, "triton"))


class LanguagePart(Protocol):
    """What a language's part of the runner gives it (python/hone_lang_<language>.py,
    embedded by the C++ side as "language_source" for the candidate's language):
    set-up before the candidate's module runs, a report once it has loaded."""

    def before_load(self, cfg: Dict[str, Any]) -> None:
        ...

    def loaded(self, module: Any) -> None:
        ...


def _embedded_module(name, source, path):
    """A module of hone's the C++ side embedded in the config (the sandbox
    cannot read hone's Python folder), executed as `name`."""
    mod = types.ModuleType(name)
    mod.__file__ = path
    sys.modules[name] = mod
    exec(compile(source, path, "exec"), mod.__dict__)
    return mod


def _language_part(cfg) -> Optional[LanguagePart]:
    """The candidate's language's part of the runner, chosen by the language
    the C++ side picked (cfg["language"]); None for a language that has none
    (load_inline, whose hook is python/hone_extbuild.py) or a baseline."""
    source, language = cfg.get("language_source"), cfg.get("language")
    if not source or not language:
        return None
    name = "hone_lang_" + language
    module = _embedded_module(name, source, name + ".py")
    part: LanguagePart = module.part(_event, describe_exception)
    return part


# hone_compat_call, once _load has executed it: what each call does.
_calls: Any = None


def _load_calls(cfg):
    """hone_compat_call (python/hone_compat_call.py), embedded in the config:
    each hone_forward call's work, handed the runner's seeding and its
    `call_failed` event."""
    global _calls
    _calls = _embedded_module("hone_compat_call", cfg["call_source"], "hone_compat_call.py")
    _calls.seed_all, _calls.call_failed = _seed_all, _call_failed
    return _calls


def hone_compat_prewarm(python_dir=None):
    """A warm sandbox's head start (src/sandbox/warm_start.cc): the imports every
    candidate needs, made before the candidate is known. Runs hone's and
    torch's code only; starts no thread (the sandbox checks). `python_dir`:
    the runner's folder, whose language parts (hone_lang_*.py) add their own
    imports (Triton files are a large share of what models write)."""
    _environment()
    import torch  # noqa: F401
    import torch.utils.cpp_extension  # noqa: F401

    for path in sorted(glob.glob(os.path.join(python_dir or "", "hone_lang_*.py"))):
        name = os.path.basename(path)[: -len(".py")]
        try:
            with open(path) as f:
                module = _embedded_module(name, f.read(), path)
            getattr(module, "prewarm", lambda: None)()
        except Exception as e:  # only the head start is lost
            print(f"hone compat: prewarm of {name}: {type(e).__name__}: {e}", file=sys.stderr)


def hone_compat_after_fork(old_scratch, new_scratch):
    """A warm sandbox forked from a zygote (src/sandbox/zygote.h): what the
    environment says of the zygote's scratch folder (HOME, TMPDIR and the
    build and cache folders _environment named) now says of the child's,
    which is already its working directory."""
    old, new = os.fsdecode(old_scratch), os.fsdecode(new_scratch)
    for key, value in list(os.environ.items()):
        if old in value:
            os.environ[key] = value.replace(old, new)
    import tempfile

    tempfile.tempdir = None


def hone_compat_load(config_json):
    """Loads the module and builds its model; an exception is described in a
    `load_failed` event (the verdict's words) and raised again."""
    try:
        return _load(config_json)
    except BaseException as e:
        _event("load_failed", **describe_exception(e))
        raise


def _load(config_json):
    clock = _Phases()
    cfg = json.loads(config_json)
    _environment()
    import torch

    clock.done("import_torch")
    events = []
    try:
        extbuild = _load_extbuild(cfg)
        if extbuild is not None:
            extbuild.install_hook(cfg.get("prebuilt") or {}, events)
    except Exception as e:  # builds then happen in here, unhooked, as before
        extbuild = None
        _event("extension_hook", ok=False, error=f"{type(e).__name__}: {e}")
    clock.done("extension_hook")
    device = cfg["device"]
    mode = cfg.get("mode", "candidate")
    sizes = {k: int(v) for k, v in cfg.get("sizes", {}).items()}
    problem_path = cfg["problem_path"]
    if mode == "compile":
        # torch.compile reads the file its code came from (automatic-dynamic
        # PGO hashes it): a copy in the scratch folder, which the sandbox may
        # read, where the problem's own folder may not be.
        problem_path = os.path.join(os.getcwd(), "hone_problem_" + os.path.basename(problem_path))
        with open(problem_path, "w") as f:
            f.write(cfg["problem_source"])
    # A language whose package is not installed (a test's) names its folder.
    for path in cfg.get("sys_path", []):
        if path not in sys.path:
            sys.path.insert(0, path)
    language = _language_part(cfg) if mode == "candidate" else None
    if language is not None:
        language.before_load(cfg)
    problem = _exec_source(cfg["problem_source"], problem_path, "hone_compat_problem", sizes)
    clock.done("problem_module")
    seed = int(cfg.get("model_seed", 0))
    _seed_all(torch, seed)
    init = problem.get_init_inputs()
    if mode == "candidate":
        candidate = _exec_source(
            cfg["candidate_source"], cfg["candidate_path"], "hone_compat_candidate", sizes
        )
        if not hasattr(candidate, "ModelNew"):
            raise RuntimeError(f"{cfg['candidate_path']}: no class ModelNew (KernelBench format)")
        cls, what = candidate.ModelNew, "ModelNew"
        clock.done("candidate_module")
    else:  # a baseline: the problem's own Model, eager or compiled
        cls, what = problem.Model, "Model"
    model = _construct(torch, cls, init, seed, device, on_device=mode != "candidate")
    if not isinstance(model, torch.nn.Module):
        raise RuntimeError(f"{cfg['candidate_path']}: {what} is not a torch.nn.Module")
    clock.done("construct")
    model = model.to(device)
    clock.done("to_device")
    if mode == "compile":
        # Shapes never change between calls: static. Compiling again inside
        # the sandbox cannot work (no compiler processes, no /dev/null), so
        # a guard that fails after the warm-up stops with its reason.
        torch._dynamo.config.automatic_dynamic_shapes = False
        torch._dynamo.config.error_on_recompile = True
        model = torch.compile(model, dynamic=False)
    calls = _load_calls(cfg)
    calls.state.update(
        torch=torch,
        model=model,
        device=device,
        cuda=device.startswith("cuda"),
        nf=int(cfg["num_forward_args"]),
        param_names=cfg.get("param_names", []),
        python_types=cfg.get("python_types", []),
        python_values=cfg.get("python_values", []),
        views={},
        streams={},
        # A ModelNew that takes its outputs as arguments (hone's
        # FlashInfer-Trace solutions): hone's own buffers, poisoned
        # as a native candidate's are, are passed after the inputs.
        dps=mode == "candidate" and bool(getattr(model, "hone_destination_passing", False)),
        params_loaded=False,
        mark=calls.sandbox_function("hone_sandbox_mark_end", None),
        # Under ncu --profile-from-start off (the profiler's
        # standalone call, tools/ncu_profile.h): the forward only.
        profiled=(os.environ.get("HONE_PROFILE_FORWARD") == "1" and device.startswith("cuda")),
        seed=(
            calls.sandbox_function("hone_sandbox_rng_seed", ctypes.c_uint64)
            if cfg.get("reseed_rng")
            else None
        ),
    )
    if cfg.get("warm_up", True):
        _warm_up(torch, model, problem, device, seed)
        clock.done("warm_up")
    if language is not None:
        language.loaded(candidate)
    if extbuild is not None:
        extbuild.seal("the module had loaded and made its first call")
    for built in events:
        _event("extension", **built)
    _event("load_seconds", **clock.phases)
    return 0


class _Phases:
    """Seconds per phase of the module's load, reported as one event (where
    a slow start went: torch's import, the model's construction, the first
    call)."""

    def __init__(self):
        import time

        self._now = time.perf_counter
        self._last = self._now()
        self.phases = {}

    def done(self, name):
        now = self._now()
        self.phases[name] = round(now - self._last, 4)
        self._last = now


def hone_compat_before_call(address):
    """The step before each call's hold, flush and clock (the sandbox calls
    it first): hone_compat_call.before_call."""
    return _calls.before_call(address)


def hone_compat_call(address):
    """One hone_forward call: 0, or CALL_FAILED after a `call_failed` event
    naming why (an exception ModelNew raised, or a result hone cannot take)."""
    try:
        return _calls.call(address)
    except Exception as e:
        return _call_failed("raised", e)
