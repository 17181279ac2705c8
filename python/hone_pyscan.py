"""Static scan of a KernelBench `ModelNew` file: what hone needs to know
before it runs anything, read with Python's own parser and never executed.

    python3 hone_pyscan.py [--kernel-decorator DOTTED.PATH]... FILE
        -> one JSON line on stdout, exit 0 (exit 2: bad usage)

The reply (`scan(source, path)`):

- ok / error: whether the file parses ("<path>:<line>: SyntaxError: <msg>").
- model_new: whether and how the module defines ModelNew (a class, a
  subclass of something else than nn.Module, an assignment, an import, ...).
- extensions: every call of torch.utils.cpp_extension.load_inline / load,
  under any import alias, with its scope (a lazy build in forward differs
  from one at import), whether a try encloses it, and its arguments resolved
  statically where they are literals, names bound once, concatenations,
  f-strings, joins, dedents or formats of those; `key` is
  hone_extbuild.extension_key of them, the key the in-sandbox hook computes
  from the arguments the module really passes.
- kernels (`__global__` names found in the text, strings included, and in
  the source files of resolved cpp_extension.load calls),
  triton_kernels (functions decorated with triton.jit), builds_extension,
  and `uses`: cheap hints of side streams, CUDA graphs and libraries.
- language: "triton", "load_inline" or "" (only PyTorch), what its kernels
  are written in.
- dsl_kernels: functions decorated with one of the --kernel-decorator paths
  (a kernel DSL's own: each {name, decorator, line}); they count as kernels
  the file builds.
- findings: what hone's static rules for ModelNew files found
  (hone_pylint.py), each {rule, line, token, detail}.

Trusted, standard library only (Python 3.8+), and it does not import torch:
it runs in about 50 ms. Hostile input is expected: nothing here evaluates
code, resolved values are capped in size, and a file too deep to parse is an
error in the reply, not a crash.

This file is the entry (scan(), main()); its parts, one module per concept:
hone_pyscope.py (scopes and bindings), hone_pyimports.py (what names stand
for through imports), hone_pyresolve.py (constant values of expressions),
hone_pycalls.py (extension calls, Triton and DSL kernels).
"""

import ast
import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hone_pylint  # noqa: E402
from hone_pycalls import _CallFinder  # noqa: E402
from hone_pyimports import _import_map, dotted  # noqa: E402
from hone_pyresolve import MAX_STRING, Resolver  # noqa: E402
from hone_pyscope import Scope, _Collector, _parents  # noqa: E402

MAX_DECLARATION_CHARS = 512  # as kMaxDeclarationChars in compat_candidate.cc


# ---------------------------------------------------------------------------
# text scans (the same rules as the C++ side)


def _is_ident_char(c):
    return c.isascii() and (c.isalnum() or c == "_")


def _identifier_before(s, end):
    while end > 0 and s[end - 1] in " \t\n\v\f\r":
        end -= 1
    b = end
    while b > 0 and _is_ident_char(s[b - 1]):
        b -= 1
    return s[b:end]


def global_kernels(source):
    """`__global__ [type] [__launch_bounds__(...)] name(`: the names, in order."""
    names = []
    at = source.find("__global__")
    while at != -1:
        start = at + 10
        for _ in range(4):
            paren = source.find("(", start)
            if paren == -1 or paren - at > MAX_DECLARATION_CHARS:
                break
            name = _identifier_before(source, paren)
            if name != "__launch_bounds__":
                if name and name not in names:
                    names.append(name)
                break
            close = source.find(")", paren)
            if close == -1:
                break
            start = close + 1
        at = source.find("__global__", at + 10)
    return names


_SIDE_STREAM_MARKS = (
    "torch.cuda.Stream",
    "cuda.Stream(",
    "torch.cuda.stream(",
    "ExternalStream",
    "cudaStreamCreate",
    "getStreamFromPool",
)
_GRAPH_MARKS = (
    "torch.cuda.graph",
    "CUDAGraph",
    "cudaGraph",
    "make_graphed_callables",
    "cudaStreamBeginCapture",
)
_LIBRARY_MARKS = (
    ("cublas", ("cublas",)),
    ("cudnn", ("cudnn",)),
    ("cutlass", ("cutlass",)),
    ("cute", ("<cute/", "cute::")),
    ("thrust", ("<thrust/", "thrust::")),
    ("cub", ("<cub/", "cub::")),
    ("curand", ("curand",)),
    ("cufft", ("cufft",)),
    ("cusparse", ("cusparse",)),
    ("cusolver", ("cusolver",)),
    ("nccl", ("nccl",)),
)
_KNOWN_PACKAGES = {"torch", "triton", "numpy", "__future__", "hone_compat_problem"}
_STDLIB_FALLBACK = {
    "abc",
    "ast",
    "collections",
    "contextlib",
    "copy",
    "ctypes",
    "dataclasses",
    "enum",
    "functools",
    "glob",
    "hashlib",
    "importlib",
    "inspect",
    "io",
    "itertools",
    "json",
    "logging",
    "math",
    "operator",
    "os",
    "pathlib",
    "random",
    "re",
    "shutil",
    "string",
    "struct",
    "subprocess",
    "sys",
    "tempfile",
    "textwrap",
    "threading",
    "time",
    "types",
    "typing",
    "warnings",
    "weakref",
}


def _uses(source, imported):
    low = source.lower()
    libs = [name for name, marks in _LIBRARY_MARKS if any(m.lower() in low for m in marks)]
    stdlib = getattr(sys, "stdlib_module_names", _STDLIB_FALLBACK)
    for top in imported:
        if top not in stdlib and top not in _KNOWN_PACKAGES and top not in libs:
            libs.append(top)
    return {
        "side_streams": any(m in source for m in _SIDE_STREAM_MARKS),
        "cuda_graphs": any(m in source for m in _GRAPH_MARKS),
        "external_libraries": libs,
    }


# ---------------------------------------------------------------------------
# ModelNew


_MODULE_BASES = {"torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module", "Module"}


def _module_statements(body):
    """Module-level statements, through if/try/with/for/while/match bodies."""
    for stmt in body:
        yield stmt
        for part in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, part, None)
            if isinstance(inner, list) and not isinstance(
                stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                yield from _module_statements(inner)
        for h in getattr(stmt, "handlers", []) or []:
            yield from _module_statements(h.body)
        for case in getattr(stmt, "cases", []) or []:
            yield from _module_statements(case.body)


def _targets_name(target, name):
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_targets_name(e, name) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _targets_name(target.value, name)
    return False


def _string_of(node):
    if type(node).__name__ == "Index":
        node = node.value
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _model_new_how(stmt, names):
    """How `stmt` defines ModelNew, or None."""
    if isinstance(stmt, ast.ClassDef) and stmt.name == "ModelNew":
        bases = [dotted(b, names) for b in stmt.bases]
        plain = not bases or all(b in _MODULE_BASES for b in bases)
        return "class" if plain else "subclass"
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if (
            any(_targets_name(t, "ModelNew") for t in targets)
            and getattr(stmt, "value", None) is not None
        ):
            plain = all(isinstance(t, ast.Name) for t in targets)
            return "assignment" if plain else "other"
        for t in targets:  # globals()["ModelNew"] = ...
            if isinstance(t, ast.Subscript) and _string_of(t.slice) == "ModelNew":
                return "other"
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for a in stmt.names:
            if (a.asname or a.name.split(".")[0]) == "ModelNew":
                return "import"
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "ModelNew":
        return "other"
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
        targets = (
            [stmt.target]
            if hasattr(stmt, "target")
            else [i.optional_vars for i in stmt.items if i.optional_vars is not None]
        )
        if any(_targets_name(t, "ModelNew") for t in targets):
            return "other"
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value  # setattr(module, "ModelNew", ...)
        if (
            isinstance(call.func, ast.Name)
            and call.func.id == "setattr"
            and len(call.args) >= 2
            and _string_of(call.args[1]) == "ModelNew"
        ):
            return "other"
    return None


def _model_new(tree, names):
    for stmt in _module_statements(tree.body):
        how = _model_new_how(stmt, names)
        if how:
            return {"defined": True, "how": how, "line": stmt.lineno}
    return {"defined": False, "how": None, "line": None}


# ---------------------------------------------------------------------------
# the scan


def _empty(source):
    return {
        "ok": True,
        "error": None,
        "model_new": {"defined": False, "how": None, "line": None},
        "extensions": [],
        "kernels": global_kernels(source),
        "triton_kernels": [],
        "builds_extension": False,
        "uses": _uses(source, []),
        "language": "",
        "findings": [],
        "dsl_kernels": [],
    }


def _imported_packages(tree):
    tops = []
    for node in ast.walk(tree):
        mods = []
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            mods = [node.module]
        for m in mods:
            top = m.split(".")[0]
            if top not in tops:
                tops.append(top)
    return tops


def scan(source, path, decorators=()):
    """The scan of one ModelNew file's text (`path` names it in messages).
    `decorators`: dotted paths that mark a kernel of the file's language
    ("triton.jit", a DSL's "cute.kernel"), reported as `dsl_kernels`."""
    out = _empty(source)
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" and the like
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        out.update(ok=False, error="%s:%s: SyntaxError: %s" % (path, e.lineno or 0, e.msg))
        return out
    except (ValueError, RecursionError, MemoryError) as e:
        out.update(ok=False, error="%s:1: %s: %s" % (path, type(e).__name__, e))
        return out
    try:
        _scan_tree(tree, source, out, decorators)
    except (RecursionError, MemoryError) as e:
        out.update(
            ok=False,
            error="%s:1: %s: the file is too deeply nested to scan (%s)"
            % (path, type(e).__name__, e),
        )
    return out


def _scan_tree(tree, source, out, decorators=()):
    names = _import_map(tree)
    module_scope = Scope("module", "<module>", None)
    collector = _Collector(module_scope, _parents(tree))
    for stmt in tree.body:
        collector.visit(stmt)
    finder = _CallFinder(collector.scopes, module_scope, names, Resolver(names), decorators)
    for stmt in tree.body:
        finder.visit(stmt)
    out["model_new"] = _model_new(tree, names)
    out["extensions"] = finder.extensions
    out["kernels"] += [
        k for k in _source_file_kernels(finder.extensions) if k not in out["kernels"]
    ]
    out["triton_kernels"] = finder.triton
    out["dsl_kernels"] = finder.dsl
    out["builds_extension"] = bool(
        finder.extensions or finder.triton or finder.dsl or finder.references or finder.foreign
    )
    out["foreign_builders"] = finder.foreign
    packages = _imported_packages(tree)
    out["uses"] = _uses(source, packages)
    out["language"] = _language(finder, packages)
    out["findings"] = _guarded_builds(finder.extensions) + hone_pylint.findings(
        tree, names, finder.triton + [k["name"] for k in finder.dsl]
    )


def _source_file_kernels(extensions):
    """The `__global__` names of the files a resolved cpp_extension.load call
    builds (absolute paths, as the call resolves them): its kernels are the
    candidate's own as much as a load_inline string's. hone's builder reads
    the same files to build them; only regular files of bounded size are
    read, so a path to a device or a pipe cannot stall the scan."""
    names = []
    for e in extensions:
        if e["call"] != "load" or not e["resolved"]:
            continue
        sources = e["args"].get("sources")
        for p in [sources] if isinstance(sources, str) else sources or []:
            try:
                if not (
                    isinstance(p, str)
                    and os.path.isabs(p)
                    and os.path.isfile(p)
                    and os.path.getsize(p) <= MAX_STRING
                ):
                    continue
                with open(p, encoding="utf-8", errors="replace") as f:
                    text = f.read(MAX_STRING)
            except OSError:
                continue
            names += [k for k in global_kernels(text) if k not in names]
    return names


def _language(finder, packages):
    """What the file's kernels are written in: "triton" (it imports Triton or
    defines @triton.jit kernels), "load_inline" (a C++/CUDA extension), or
    "" (neither: only PyTorch)."""
    if finder.triton or "triton" in packages:
        return "triton"
    if finder.extensions or finder.references or finder.foreign:
        return "load_inline"
    return ""


def _guarded_builds(extensions):
    """An extension built inside a try block: when the build fails, the file
    goes on without its kernel (the `fallback` rule of hone_pylint.py)."""
    return [
        {
            "rule": "fallback",
            "line": e["line"],
            "token": "try: %s(...)" % e["call"],
            "detail": "its %s build at line %d is inside a try block: when it fails, the file "
            "runs without its kernel" % (e["call"], e["line"]),
        }
        for e in extensions
        if e.get("in_try")
    ]


def main(argv):
    args, decorators = argv[1:], []
    while len(args) >= 2 and args[0] == "--kernel-decorator":
        decorators.append(args[1])
        args = args[2:]
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: hone_pyscan.py [--kernel-decorator DOTTED.PATH]... FILE", file=sys.stderr)
        return 2
    path = args[0]
    try:
        with open(path, "rb") as f:
            source = f.read().decode("utf-8", errors="replace")
    except OSError as e:
        print("hone_pyscan.py: %s: %s" % (path, e.strerror or e), file=sys.stderr)
        return 2
    print(json.dumps(scan(source, path, decorators)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
