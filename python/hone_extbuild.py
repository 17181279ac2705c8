"""Torch C++/CUDA extensions of KernelBench `ModelNew` files, built by hone.

A ModelNew file usually builds its kernels with
`torch.utils.cpp_extension.load_inline` (or `load`) while it is imported:
40 to 80 s of compilers, run serially inside the untrusted sandbox. hone
builds those extensions itself instead, outside the sandbox, in parallel and
cached, and the sandboxed module imports the result. This file holds the
three pieces that must agree on what an extension *is*:

- `canonical_args` / `extension_key` (pure, standard library only): the
  arguments as load_inline itself normalises them, and their hash. The static
  scanner (hone_pyscan.py, on arguments read from the file) and the hook (on
  the arguments the module really passes) call the same function, so a key
  computed before the module runs finds the build the module asks for.
- `prepare` / `oracle_request` (trusted, in a process that imported torch:
  hone's oracle): writes the sources exactly as the installed torch's
  load_inline would, and lets torch's own internals write its ninja file
  (without building) to learn the exact compiler commands it would run. hone
  (src/build/torch_extension.h) runs those commands.
- `install_hook` / `seal` / `events` (untrusted, inside the sandbox's
  Python): replaces load_inline and load with a wrapper that imports the
  prebuilt library when hone has one for the call's key, and otherwise builds
  as torch would, recording what happened so that a failure the module
  swallows (KernelBench files often fall back to PyTorch in an `except`) is
  still reported.

Nothing here raises out of `oracle_request`; the hook re-raises what the
original would have raised. Not thread-safe: the oracle and the compat
runner are single-threaded.
"""

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

# load_inline's parameters up to cuda_sources, and load's up to sources, are
# positional in every torch version hone knows; later ones moved (torch 2.7
# put sycl_sources fourth), so only keywords name them reliably.
LOAD_INLINE_PARAMS = (
    "name",
    "cpp_sources",
    "cuda_sources",
    "functions",
    "extra_cflags",
    "extra_cuda_cflags",
    "extra_ldflags",
    "extra_include_paths",
    "build_directory",
    "verbose",
    "with_cuda",
    "is_python_module",
    "with_pytorch_error_handling",
    "keep_intermediates",
    "use_pch",
    "no_implicit_headers",
)
LOAD_PARAMS = (
    "name",
    "sources",
    "extra_cflags",
    "extra_cuda_cflags",
    "extra_ldflags",
    "extra_include_paths",
    "build_directory",
    "verbose",
    "with_cuda",
    "is_python_module",
    "is_standalone",
    "keep_intermediates",
)
STABLE_POSITIONAL = {"load_inline": 3, "load": 2}
PARAMS = {"load_inline": LOAD_INLINE_PARAMS, "load": LOAD_PARAMS}

# Arguments that change where or how loudly torch builds, never what it builds.
_IGNORED = ("verbose", "build_directory", "keep_intermediates", "use_pch")
_SOURCE_LISTS = ("cpp_sources", "cuda_sources", "sources", "sycl_sources")
_FLAG_LISTS = (
    "extra_cflags",
    "extra_cuda_cflags",
    "extra_ldflags",
    "extra_include_paths",
    "extra_sycl_cflags",
)
_DEFAULTS = {
    "load_inline": {
        "cuda_sources": [],
        "functions": None,
        "with_cuda": None,
        "is_python_module": True,
        "with_pytorch_error_handling": True,
        "no_implicit_headers": False,
    },
    "load": {"with_cuda": None, "is_python_module": True, "is_standalone": False},
}


def _plain(value):
    """JSON-able form of a runtime value: tuples become lists, paths strings;
    anything else unknown becomes its repr (its key then matches no build)."""
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return "<unhashable %s>" % type(value).__name__


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value) if isinstance(value, list) else value


def canonical_args(kind, args):
    """The arguments of a load_inline ("load_inline") or load ("load") call as
    load_inline normalises them: sources and flags as lists, defaults filled
    in, arguments that do not change the build dropped. Pure; never raises
    on odd values (they stay as they are and match nothing)."""
    out = {}
    for k, v in args.items():
        if k in _IGNORED:
            continue
        v = _plain(v)
        if k in _SOURCE_LISTS or k in _FLAG_LISTS:
            v = _as_list(v)
        elif k == "functions" and isinstance(v, str):
            v = [v]
        out[k] = v
    for k, v in _DEFAULTS.get(kind, {}).items():
        out.setdefault(k, v)
    for k in _FLAG_LISTS[:4]:
        out.setdefault(k, [])
    # Parameters of newer torch versions (sycl) that are left at their
    # defaults must not make a key differ from one computed without them.
    for k in ("sycl_sources", "extra_sycl_cflags", "with_sycl"):
        if k in out and out[k] in (None, [], False):
            del out[k]
    return out


def extension_key(kind, args):
    """sha256 hex of the call's kind and canonical arguments."""
    text = kind + "\n" + json.dumps(canonical_args(kind, args), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------
# prepare: the build plan (trusted, torch imported)


class PrepareError(Exception):
    pass


def _capture_jit_compile(ce, kind, args, build_dir):
    """Runs torch's own load_inline/load with _jit_compile replaced by a
    recorder: torch writes main.cpp / cuda.cu exactly as it would, and the
    recorder keeps the arguments it would have built with."""
    import inspect

    original = ce._jit_compile
    sig = inspect.signature(original)
    captured = {}

    def recorder(*a, **kw):
        captured.update(sig.bind(*a, **kw).arguments)

    call = dict(args)
    call["build_directory"] = build_dir
    call["verbose"] = False
    params = inspect.signature(getattr(ce, kind)).parameters
    if "use_pch" in params:
        call["use_pch"] = False  # hone keeps its own precompiled header
    for k in [k for k in call if k not in params]:
        # A newer torch's argument at its default (the scanner's canonical
        # form fills defaults in) means nothing to an older torch.
        if call[k] not in (None, [], False, _DEFAULTS.get(kind, {}).get(k)):
            raise PrepareError("this torch's %s has no argument '%s'" % (kind, k))
        del call[k]
    ce._jit_compile = recorder
    try:
        getattr(ce, kind)(**call)
    finally:
        ce._jit_compile = original
    if not captured:
        raise PrepareError("torch's %s did not reach its build step" % kind)
    return captured


def _call_with_known(fn, values):
    """Calls a torch internal with the keyword arguments its signature has
    (their sets differ between torch versions); one it needs that `values`
    lacks is an error naming it."""
    import inspect

    kwargs = {}
    for pname, p in inspect.signature(fn).parameters.items():
        if pname in values:
            kwargs[pname] = values[pname]
        elif p.default is inspect.Parameter.empty:
            raise PrepareError("unsupported torch: %s needs '%s'" % (fn.__name__, pname))
    return fn(**kwargs)


def _write_ninja(ce, build_dir, jit):
    sources = jit["sources"]
    with_cuda = jit.get("with_cuda")
    if with_cuda is None:
        with_cuda = any(ce._is_cuda_file(s) for s in sources)
    if jit.get("is_standalone"):
        raise PrepareError("is_standalone extensions (executables) are not prebuilt")
    if with_cuda:
        import torch

        if torch.version.cuda is None or getattr(ce, "CUDA_HOME", None) is None:
            raise PrepareError(
                "torch %s has no CUDA (or no CUDA_HOME): cannot build CUDA "
                "sources" % torch.__version__
            )
    ldflags = _call_with_known(
        ce._prepare_ldflags,
        {
            "extra_ldflags": list(jit.get("extra_ldflags") or []),
            "with_cuda": with_cuda,
            "with_sycl": False,
            "verbose": False,
            "is_standalone": False,
        },
    )
    values = {
        "path": os.path.join(build_dir, "build.ninja"),
        "name": jit["name"],
        "sources": sources,
        "extra_cflags": jit.get("extra_cflags") or [],
        "extra_cuda_cflags": jit.get("extra_cuda_cflags") or [],
        "extra_sycl_cflags": jit.get("extra_sycl_cflags") or [],
        "extra_ldflags": ldflags,
        "extra_include_paths": jit.get("extra_include_paths") or [],
        "with_cuda": with_cuda,
        "with_sycl": bool(jit.get("with_sycl")),
        "is_standalone": False,
    }
    if values["with_sycl"]:
        raise PrepareError("SYCL extensions are not prebuilt")
    _call_with_known(ce._write_ninja_file_to_build_library, values)
    return values["path"], with_cuda


_NINJA_VAR = re.compile(r"\$(\$|:| |\n|\{[A-Za-z0-9_.-]+\}|[A-Za-z0-9_-]+)")


def _ninja_eval(text, scope):
    """Evaluates a ninja value: $$, '$ ', '$:', ${v} and $v (unknown: empty)."""

    def sub(m):
        tok = m.group(1)
        if tok in ("$", ":", " "):
            return tok
        if tok == "\n":
            return ""
        name = tok[1:-1] if tok.startswith("{") else tok
        return scope.get(name, "")

    return _NINJA_VAR.sub(sub, text)


def _ninja_split(text):
    """Splits a build line's path list on unescaped spaces."""
    parts, cur, i = [], "", 0
    while i < len(text):
        c = text[i]
        if c == "$" and i + 1 < len(text):
            cur += text[i : i + 2]
            i += 2
            continue
        if c == " ":
            if cur:
                parts.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        parts.append(cur)
    return parts


def parse_ninja(text):
    """The top-level variables, rules (name -> command) and build edges
    (outputs, rule, inputs) of a ninja file of the kind torch writes."""
    variables, rules, builds = {}, {}, []
    text = text.replace("$\n", "")
    rule = None
    for line in text.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith((" ", "\t")):
            if rule is not None:
                k, _, v = line.strip().partition("=")
                if k.strip() == "command":
                    rules[rule] = v.strip()
            continue
        rule = None
        if line.startswith("rule "):
            rule = line[5:].strip()
        elif line.startswith("build "):
            outs, _, rest = line[6:].partition(":")
            parts = _ninja_split(rest.strip())
            ins = [p for p in parts[1:] if p not in ("|", "||")]
            builds.append((_ninja_split(outs.strip()), parts[0], ins))
        elif "=" in line and not line.startswith("default "):
            k, _, v = line.partition("=")
            variables[k.strip()] = _ninja_eval(v.strip(), variables)
    return variables, rules, builds


_STEP_KINDS = {"compile": "cxx", "cuda_compile": "nvcc", "link": "link", "cuda_devlink": "nvcc"}


def steps_from_ninja(text, build_dir):
    """Explicit steps: argv as the shell ninja starts would split the command,
    inputs and outputs as absolute paths (ninja runs in build_dir)."""
    variables, rules, builds = parse_ninja(text)
    steps = []
    for outs, rule, ins in builds:
        if rule not in rules:
            raise PrepareError("build.ninja: rule '%s' has no command" % rule)
        unescape = [_ninja_eval(p, {}) for p in outs], [_ninja_eval(p, {}) for p in ins]
        scope = dict(
            variables,
            out=" ".join(shlex.quote(o) for o in unescape[0]),
            **{"in": " ".join(shlex.quote(i) for i in unescape[1])}
        )
        argv = shlex.split(_ninja_eval(rules[rule], scope))
        absolute = lambda p: p if os.path.isabs(p) else os.path.join(build_dir, p)  # noqa: E731
        steps.append(
            {
                "id": os.path.basename(unescape[0][0]),
                "kind": _STEP_KINDS.get(rule, rule),
                "argv": argv,
                "inputs": [absolute(p) for p in unescape[1]],
                "outputs": [absolute(p) for p in unescape[0]],
            }
        )
    return variables, steps


def _version_line(argv, last):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [ln for ln in out.splitlines() if ln.strip()]
    if not lines:
        return None
    return lines[-1] if last else lines[0]


def _toolchain(ce, variables, with_cuda):
    import torch

    arch = []
    if with_cuda:
        try:
            arch = list(ce._get_cuda_arch_flags())
        except Exception as e:  # torch raises ValueError for an unknown arch list
            raise PrepareError("torch cannot choose CUDA architectures: %s" % e)
    cxx = variables.get("cxx", "c++")
    return {
        "torch": torch.__version__,
        "cxx": _version_line(shlex.split(cxx) + ["--version"], last=False),
        "nvcc": _version_line([variables["nvcc"], "--version"], last=True)
        if with_cuda and variables.get("nvcc")
        else None,
        "cuda_arch_flags": arch,
    }


def prepare(kind, args, build_dir):
    """Writes the extension's sources into build_dir as the installed torch's
    `kind` (load_inline or load) would, and returns the build plan: the exact
    compile and link commands torch would run. Never builds anything.
    Errors (bad arguments, no CUDA for CUDA sources) are {"ok": False}."""
    try:
        return _prepare(kind, args, build_dir)
    except PrepareError as e:
        return {"ok": False, "error": str(e)}
    except Exception as e:  # torch's own validation (a bad `functions`, ...)
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}


def _prepare(kind, args, build_dir):
    if kind not in PARAMS:
        raise PrepareError("unknown extension kind '%s' (load_inline or load)" % kind)
    if not isinstance(args, dict) or not isinstance(args.get("name"), str):
        raise PrepareError("args must be an object with a string 'name'")
    import torch.utils.cpp_extension as ce

    build_dir = os.path.abspath(build_dir)
    os.makedirs(build_dir, exist_ok=True)
    key = extension_key(kind, args)
    # A copy: torch's load_inline inserts its headers into the lists it gets.
    call = {k: v for k, v in json.loads(json.dumps(args)).items() if k not in _IGNORED}
    jit = _capture_jit_compile(ce, kind, call, build_dir)
    ninja_path, with_cuda = _write_ninja(ce, build_dir, jit)
    with open(ninja_path) as f:
        variables, steps = steps_from_ninja(f.read(), build_dir)
    return {
        "ok": True,
        "key": key,
        "kind": kind,
        "name": jit["name"],
        "build_dir": build_dir,
        "library": os.path.join(build_dir, jit["name"] + ".so"),
        "with_cuda": bool(with_cuda),
        "is_python_module": bool(jit.get("is_python_module", True)),
        "toolchain": _toolchain(ce, variables, with_cuda),
        "steps": steps,
    }


def oracle_request(req):
    """The oracle's `prepare_extension` op: {"op": "prepare_extension",
    "kind": ..., "args": {...}, "build_dir": D}. Raises nothing."""
    try:
        if not isinstance(req, dict) or not isinstance(req.get("build_dir"), str):
            return {"ok": False, "error": "prepare_extension needs 'build_dir' (a string)"}
        return prepare(req.get("kind", "load_inline"), req.get("args"), req["build_dir"])
    except BaseException as e:  # never take the oracle down
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}


# ---------------------------------------------------------------------------
# the hook (untrusted, inside the sandbox's Python)

_hook = {"installed": False, "originals": {}, "prebuilt": {}, "events": [], "sealed": None}
_LOG_LINES = 30


def _describe(exc):
    """'<Type>: <message>', a long message (a build log) cut to its first
    line and last lines, where compilers put the error."""
    lines = str(exc).splitlines() or [""]
    if len(lines) > _LOG_LINES + 1:
        lines = [lines[0], "..."] + lines[-_LOG_LINES:]
    return "%s: %s" % (type(exc).__name__, "\n".join(lines))


def _library_for(key):
    entry = _hook["prebuilt"].get(key)
    if isinstance(entry, dict):
        entry = entry.get("library")
    return entry if isinstance(entry, str) and entry else None


def _failure_for(key):
    entry = _hook["prebuilt"].get(key)
    if isinstance(entry, dict) and isinstance(entry.get("error"), str):
        return entry["error"]
    return None


def _import_prebuilt(name, library, is_python_module):
    if not is_python_module:
        import ctypes

        ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        return None
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.ExtensionFileLoader(name, library)
    spec = importlib.util.spec_from_file_location(name, library, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _bind(kind, original, args, kwargs):
    import inspect

    try:
        return dict(inspect.signature(original).bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return None  # the original raises the proper TypeError itself


def _wrapper(kind, original):
    def hooked(*args, **kwargs):
        named = _bind(kind, original, args, kwargs) or {}
        name = named.get("name") if isinstance(named.get("name"), str) else "?"
        key = extension_key(kind, named) if named else ""
        event = {"name": name, "key": key}
        library = _library_for(key) if key else None
        failure = _failure_for(key) if key else None
        try:
            if failure is not None:
                # hone built this call outside the sandbox and the compiler
                # failed: raise what torch would, without building again.
                raise RuntimeError(
                    "Error building extension '%s' (hone built it outside the "
                    "sandbox):\n%s" % (name, failure)
                )
            if library:
                result = _import_prebuilt(name, library, named.get("is_python_module", True))
                event["source"] = "prebuilt"
            elif _hook["sealed"] is not None:
                raise RuntimeError(
                    "hone: ModelNew called %s('%s') after its module had loaded (%s); build "
                    "extensions at import time or in __init__" % (kind, name, _hook["sealed"])
                )
            else:
                result = original(*args, **kwargs)
                event["source"] = "built in the sandbox"
        except BaseException as e:
            event["error"] = _describe(e)
            _hook["events"].append(event)
            raise
        _hook["events"].append(event)
        return result

    hooked.__name__ = getattr(original, "__name__", kind)
    hooked.__doc__ = getattr(original, "__doc__", None)
    hooked.__wrapped__ = original
    return hooked


def install_hook(prebuilt, events):
    """Replaces torch.utils.cpp_extension.load_inline and .load (call after
    `import torch`, before the candidate's code runs, so that its later
    `from torch.utils.cpp_extension import load_inline` gets the wrapper).
    `prebuilt` maps extension keys to library paths (or {"library": path}),
    or to {"error": log} for a build hone already saw fail (the call raises
    torch's RuntimeError with that log at once);
    every call appends one event to `events`. Installing again replaces the
    mapping and the event list, never wraps a wrapper."""
    import torch.utils.cpp_extension as ce

    _hook["prebuilt"] = dict(prebuilt or {})
    _hook["events"] = events if events is not None else []
    _hook["sealed"] = None
    for kind in ("load_inline", "load"):
        original = _hook["originals"].get(kind) or getattr(ce, kind)
        _hook["originals"][kind] = original
        setattr(ce, kind, _wrapper(kind, original))
    _hook["installed"] = True


def uninstall_hook():
    """Puts torch's own load_inline and load back (tests)."""
    if not _hook["installed"]:
        return
    import torch.utils.cpp_extension as ce

    for kind, original in _hook["originals"].items():
        setattr(ce, kind, original)
    _hook.update(installed=False, originals={}, sealed=None)


def seal(reason):
    """From now on a call with no prebuilt library raises instead of building:
    the sandbox forbids compilers and new processes once the module loaded."""
    _hook["sealed"] = str(reason)


def events():
    """What every hooked call did, in order: {"name", "key", "source"} or
    {"name", "key", "error"}."""
    return _hook["events"]
