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
"""

import ast
import json
import os
import string
import sys
import textwrap
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hone_extbuild  # noqa: E402  (standard library only at import)
import hone_pylint  # noqa: E402

CPP_EXTENSION = "torch.utils.cpp_extension"
EXTENSION_FUNCS = {CPP_EXTENSION + ".load_inline": "load_inline", CPP_EXTENSION + ".load": "load"}
# Extension builders of other packages: a file that calls one builds kernels
# of its own (FlashInfer-Trace's default tvm-ffi binding), though not through
# torch's builder, which hone prebuilds; the sandbox runs them as written.
FOREIGN_BUILDERS = {"tvm_ffi.cpp.load", "tvm_ffi.cpp.load_inline"}
MAX_STRING = 16 << 20  # a resolved value larger than this is "too large"
MAX_ITEMS = 100000
MAX_DEPTH = 100  # nested resolutions (a = b + c, b = ...)
MAX_DECLARATION_CHARS = 512  # as kMaxDeclarationChars in compat_candidate.cc


class Unresolved(Exception):
    """A value hone does not compute statically; the message says why."""


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
# scopes and bindings


class Binding:
    def __init__(self, line, node, value=None, what="bound"):
        self.line = line
        self.node = node  # the statement, for ordering against a call
        self.value = value  # the expression of a plain `name = value`
        self.what = what


class Scope:
    def __init__(self, kind, name, parent):
        self.kind = kind  # "module", "class", "function", "comprehension"
        self.name = name
        self.parent = parent
        self.bindings = {}
        self.globals = set()
        self.nonlocals = set()

    def add(self, name, binding):
        target = self
        if name in self.globals:
            target = self.module()
        elif name in self.nonlocals:
            target = self.enclosing_function() or self.module()
        target.bindings.setdefault(name, []).append(binding)

    def module(self):
        s = self
        while s.parent is not None:
            s = s.parent
        return s

    def enclosing_function(self):
        s = self.parent
        while s is not None and s.kind not in ("function", "module"):
            s = s.parent
        return s if s is not None and s.kind == "function" else None

    def chain(self):
        """Where a name read in this scope is looked up: itself, then the
        enclosing function scopes (class bodies are skipped, as in Python),
        then the module."""
        out, s = [self], self.parent
        while s is not None:
            if s.kind != "class":
                out.append(s)
            s = s.parent
        return out


_SCOPE_NODES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _statement_of(node, parents):
    while node in parents and not isinstance(node, ast.stmt):
        node = parents[node]
    return node


class _Collector(ast.NodeVisitor):
    """Fills each scope's bindings, walking the tree once."""

    def __init__(self, module_scope, parents):
        self.scope = module_scope
        self.parents = parents
        self.scopes = {}  # scope node -> Scope

    def _bind(self, name, node, value=None, what="bound"):
        stmt = _statement_of(node, self.parents)
        self.scope.add(name, Binding(getattr(stmt, "lineno", 0), stmt, value, what))

    def _in_scope(self, node, kind, name, body_visit):
        scope = Scope(kind, name, self.scope)
        self.scopes[node] = scope
        outer, self.scope = self.scope, scope
        body_visit()
        self.scope = outer

    def _visit_args(self, args):
        for d in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(d)

    def _bind_params(self, args):
        for a in getattr(args, "posonlyargs", []) + args.args + args.kwonlyargs:
            self._bind(a.arg, a, what="a parameter")
        for a in (args.vararg, args.kwarg):
            if a is not None:
                self._bind(a.arg, a, what="a parameter")

    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            self.visit(d)
        self._visit_args(node.args)
        self._bind(node.name, node, what="a def")

        def body():
            self._bind_params(node.args)
            for stmt in node.body:
                self.visit(stmt)

        self._in_scope(node, "function", node.name, body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._visit_args(node.args)

        def body():
            self._bind_params(node.args)
            self.visit(node.body)

        self._in_scope(node, "function", "<lambda>", body)

    def visit_ClassDef(self, node):
        for d in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            self.visit(d)
        self._bind(node.name, node, what="a class")
        self._in_scope(node, "class", node.name, lambda: [self.visit(s) for s in node.body])

    def _comprehension(self, node):
        first = node.generators[0]
        self.visit(first.iter)  # evaluated in the enclosing scope

        def body():
            for i, gen in enumerate(node.generators):
                self.visit(gen.target)
                if i:
                    self.visit(gen.iter)
                for cond in gen.ifs:
                    self.visit(cond)
            for part in ("elt", "key", "value"):
                if hasattr(node, part):
                    self.visit(getattr(node, part))

        self._in_scope(node, "comprehension", "<comprehension>", body)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_NamedExpr(self, node):
        # A walrus in a comprehension binds in the enclosing function.
        scope = self.scope
        while scope.kind == "comprehension":
            scope = scope.parent
        stmt = _statement_of(node, self.parents)
        scope.add(node.target.id, Binding(getattr(stmt, "lineno", 0), stmt, None, "a :="))
        self.visit(node.value)

    def visit_Global(self, node):
        self.scope.globals.update(node.names)

    def visit_Nonlocal(self, node):
        self.scope.nonlocals.update(node.names)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store):
            self._bind(node.id, node, what=self._store_kind(node))
        elif isinstance(node.ctx, ast.Del):
            self._bind(node.id, node, what="deleted")

    def _store_kind(self, node):
        parent = self.parents.get(node)
        if isinstance(parent, ast.AugAssign):
            return "augmented"
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
            return "a loop variable"
        if isinstance(parent, (ast.Tuple, ast.List, ast.Starred)):
            return "unpacked from a sequence"
        return "bound by a with statement" if isinstance(parent, ast.withitem) else "bound"

    def visit_Assign(self, node):
        self.visit(node.value)
        for t in node.targets:
            if isinstance(t, ast.Name):
                self._bind(t.id, t, node.value, "bound")
            else:
                self.visit(t)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)
            if isinstance(node.target, ast.Name):
                self._bind(node.target.id, node.target, node.value, "bound")
                return
        if not isinstance(node.target, ast.Name):
            self.visit(node.target)

    def visit_Import(self, node):
        for a in node.names:
            self._bind(a.asname or a.name.split(".")[0], node, what="an import")

    def visit_ImportFrom(self, node):
        for a in node.names:
            if a.name != "*":
                self._bind(a.asname or a.name, node, what="an import")

    def visit_ExceptHandler(self, node):
        if node.name:
            self._bind(node.name, node, what="an exception")
        self.generic_visit(node)

    def generic_visit(self, node):
        for attr in ("name", "rest"):  # match-statement captures (3.10+)
            v = getattr(node, attr, None)
            if isinstance(v, str) and type(node).__name__.startswith("Match"):
                self._bind(v, node, what="a match capture")
        super().generic_visit(node)


# ---------------------------------------------------------------------------
# imports: which names mean torch.utils.cpp_extension and triton


def _import_map(tree):
    """name -> dotted path it stands for, over every import in the file, plus
    plain aliases (`build = load_inline`)."""
    names = {}
    star = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    names[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if a.name == "*":
                    star.add(node.module)
                else:
                    names[a.asname or a.name] = node.module + "." + a.name
    if CPP_EXTENSION in star:
        for f in ("load_inline", "load"):
            names.setdefault(f, CPP_EXTENSION + "." + f)
    for _ in range(3):  # aliases of aliases
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                path = dotted(node.value, names)
                if path in EXTENSION_FUNCS:
                    names[node.targets[0].id] = path
    return names


def dotted(node, names):
    """The dotted path a Name/Attribute chain stands for, through imports."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(names.get(node.id, node.id))
    return ".".join(reversed(parts))


def _extension_kind(func, names):
    path = dotted(func, names)
    if path in EXTENSION_FUNCS:
        return EXTENSION_FUNCS[path]
    # load_inline by any other route (an unknown module alias, a re-export)
    # is still load_inline; a bare `load` could be json.load, so it is not.
    if isinstance(func, ast.Attribute) and func.attr == "load_inline":
        return "load_inline"
    if isinstance(func, ast.Name) and func.id == "load_inline":
        return "load_inline"
    return None


def _decorator_path(decorator, names):
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    return dotted(decorator, names) or ""


def _is_triton_jit(decorator, names):
    path = _decorator_path(decorator, names)
    return path.split(".")[0] == "triton" and path.split(".")[-1] == "jit"


# ---------------------------------------------------------------------------
# static values


def _describe(node, names=None):
    if isinstance(node, ast.Call):
        return "%s(...)" % (_describe(node.func) or "a call")
    if isinstance(node, ast.Attribute):
        inner = _describe(node.value)
        return "%s.%s" % (inner, node.attr) if inner else node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _check_size(v):
    if isinstance(v, str) and len(v) > MAX_STRING:
        raise Unresolved("a string longer than %d bytes" % MAX_STRING)
    if isinstance(v, (list, tuple, dict)) and len(v) > MAX_ITEMS:
        raise Unresolved("more than %d items" % MAX_ITEMS)
    return v


_SCALARS = (str, int, float, bool, type(None))
_STR_METHODS = {"join", "strip", "lstrip", "rstrip", "format", "replace", "upper", "lower"}


def _safe_format(fmt, args, kwargs):
    """str.format without attribute access (`{0.__class__}`) in its fields."""
    for _, field, spec, _ in string.Formatter().parse(fmt):
        if field and "." in field:
            raise Unresolved("a format field reads an attribute ({%s})" % field)
        if spec and "{" in spec:
            raise Unresolved("a nested format field")
    return fmt.format(*args, **kwargs)


def _numeric(op, a, b):
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        return a * b
    if isinstance(op, ast.Div):
        return a / b
    if isinstance(op, ast.FloorDiv):
        return a // b
    if isinstance(op, ast.Mod):
        return a % b
    if isinstance(op, ast.Pow) and isinstance(b, int) and 0 <= b <= 64 and abs(a) < 2**64:
        return a**b
    raise Unresolved("an arithmetic operator hone does not evaluate")


class Resolver:
    """Values of expressions that are literals or built from literals."""

    def __init__(self, names):
        self.names = names  # the import map
        self.memo = {}
        self.active = set()
        self.depth = 0

    def value(self, node, scope, at):
        """The value of `node` read in `scope` by the statement `at` (for the
        rule that a local must be bound before it is read)."""
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise Unresolved("nested too deeply")
            return _check_size(self._value(node, scope, at))
        except (ArithmeticError, ValueError, TypeError, IndexError, KeyError) as e:
            raise Unresolved("%s evaluating it" % type(e).__name__)
        finally:
            self.depth -= 1

    def _value(self, node, scope, at):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, _SCALARS):
                return node.value
            raise Unresolved("a %s literal" % type(node.value).__name__)
        if isinstance(node, ast.Name):
            return self.name(node.id, scope, at)
        if isinstance(node, (ast.List, ast.Tuple)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    out.extend(self._sequence(self.value(e.value, scope, at)))
                else:
                    out.append(self.value(e, scope, at))
            return out if isinstance(node, ast.List) else tuple(out)
        if isinstance(node, ast.Dict):
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    d = self.value(v, scope, at)
                    if not isinstance(d, dict):
                        raise Unresolved("** of a non-dict")
                    out.update(d)
                else:
                    out[self.value(k, scope, at)] = self.value(v, scope, at)
            return out
        if isinstance(node, ast.JoinedStr):
            return "".join(self._fstring_part(p, scope, at) for p in node.values)
        if isinstance(node, ast.BinOp):
            return self._binop(node, scope, at)
        if isinstance(node, ast.UnaryOp):
            v = self.value(node.operand, scope, at)
            if isinstance(node.op, ast.USub) and isinstance(v, (int, float)):
                return -v
            if isinstance(node.op, ast.UAdd) and isinstance(v, (int, float)):
                return v
            if isinstance(node.op, ast.Not):
                return not v
            raise Unresolved("a unary operator on %s" % type(v).__name__)
        if isinstance(node, ast.Call):
            return self._call(node, scope, at)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, scope, at)
        what = _describe(node)
        if what:
            raise Unresolved("reads %s" % what)
        raise Unresolved("a %s expression" % type(node).__name__)

    @staticmethod
    def _sequence(v):
        if not isinstance(v, (list, tuple)):
            raise Unresolved("* of a non-sequence")
        return list(v)

    def _fstring_part(self, part, scope, at):
        if isinstance(part, ast.Constant):
            return str(part.value)
        if not isinstance(part, ast.FormattedValue):
            raise Unresolved("an f-string part")
        v = self.value(part.value, scope, at)
        if not isinstance(v, _SCALARS):
            raise Unresolved("an f-string field of type %s" % type(v).__name__)
        conv = {-1: lambda x: x, 115: str, 114: repr, 97: ascii}.get(part.conversion)
        if conv is None:
            raise Unresolved("an f-string conversion")
        spec = self.value(part.format_spec, scope, at) if part.format_spec else ""
        return format(conv(v), spec)

    def _binop(self, node, scope, at):
        a = self.value(node.left, scope, at)
        b = self.value(node.right, scope, at)
        op = node.op
        if isinstance(op, ast.Add) and type(a) is type(b) and isinstance(a, (str, list, tuple)):
            if len(a) + len(b) > (MAX_STRING if isinstance(a, str) else MAX_ITEMS):
                raise Unresolved("too large")
            return a + b
        if isinstance(op, ast.Mult) and isinstance(a, (str, list, tuple)) and type(b) is int:
            if len(a) * max(b, 0) > (MAX_STRING if isinstance(a, str) else MAX_ITEMS):
                raise Unresolved("too large")
            return a * b
        if isinstance(op, ast.Mod) and isinstance(a, str):
            if not isinstance(b, _SCALARS + (tuple, dict)):
                raise Unresolved("% formatting of %s" % type(b).__name__)
            return a % b
        nums = (int, float)
        if isinstance(a, nums) and isinstance(b, nums):
            return _numeric(op, a, b)
        raise Unresolved("%s %s %s" % (type(a).__name__, type(op).__name__, type(b).__name__))

    def _subscript(self, node, scope, at):
        container = self.value(node.value, scope, at)
        sl = node.slice
        if type(sl).__name__ == "Index":  # Python 3.8 wraps the index
            sl = sl.value
        if isinstance(sl, ast.Slice):
            parts = [
                self.value(p, scope, at) if p is not None else None
                for p in (sl.lower, sl.upper, sl.step)
            ]
            if not isinstance(container, (str, list, tuple)):
                raise Unresolved("a slice of %s" % type(container).__name__)
            return container[slice(*parts)]
        index = self.value(sl, scope, at)
        if isinstance(container, (str, list, tuple, dict)):
            return container[index]
        raise Unresolved("an index into %s" % type(container).__name__)

    def _call(self, node, scope, at):
        func = node.func
        path = dotted(func, self.names)
        if (
            path in ("textwrap.dedent", "inspect.cleandoc")
            and len(node.args) == 1
            and not node.keywords
        ):
            text = self.value(node.args[0], scope, at)
            if not isinstance(text, str):
                raise Unresolved("%s of a non-string" % path)
            return textwrap.dedent(text) if path == "textwrap.dedent" else _cleandoc(text)
        if (
            path == "str"
            and len(node.args) == 1
            and not node.keywords
            and "str" not in scope.module().bindings
        ):
            v = self.value(node.args[0], scope, at)
            if isinstance(v, _SCALARS):
                return str(v)
        if isinstance(func, ast.Attribute) and func.attr in _STR_METHODS:
            receiver = self.value(func.value, scope, at)
            if isinstance(receiver, str):
                args = [
                    self.value(a, scope, at) for a in node.args if not isinstance(a, ast.Starred)
                ]
                if len(args) != len(node.args):
                    raise Unresolved("a *argument to str.%s" % func.attr)
                kwargs = {}
                for k in node.keywords:
                    if k.arg is None:
                        raise Unresolved("a **argument to str.%s" % func.attr)
                    kwargs[k.arg] = self.value(k.value, scope, at)
                return self._str_method(receiver, func.attr, args, kwargs)
        raise Unresolved("calls %s" % (_describe(node) or "a function"))

    @staticmethod
    def _str_method(s, method, args, kwargs):
        if method == "format":
            if any(not isinstance(a, _SCALARS + (list, tuple, dict)) for a in args):
                raise Unresolved("str.format of an unknown value")
            return _safe_format(s, args, kwargs)
        if kwargs:
            raise Unresolved("keyword arguments to str.%s" % method)
        if method == "join":
            if (
                len(args) != 1
                or not isinstance(args[0], (list, tuple))
                or not all(isinstance(x, str) for x in args[0])
            ):
                raise Unresolved("str.join of something other than strings")
            return s.join(args[0])
        if not all(isinstance(a, (str, int)) and not isinstance(a, bool) for a in args):
            raise Unresolved("str.%s with unusual arguments" % method)
        return getattr(s, method)(*args)

    def name(self, ident, scope, at):
        for s in scope.chain():
            if ident in s.globals:
                s = s.module()
            bindings = s.bindings.get(ident)
            if bindings is None:
                continue
            where = "at module level" if s.kind == "module" else "in '%s'" % s.name
            if len(bindings) != 1:
                raise Unresolved("'%s' is bound %d times %s" % (ident, len(bindings), where))
            b = bindings[0]
            if b.value is None:
                raise Unresolved("'%s' is %s %s" % (ident, b.what, where))
            if s.kind != "module" and not _before(b.node, at):
                raise Unresolved("'%s' is bound after it is used in '%s'" % (ident, s.name))
            return self._binding_value(ident, s, b)
        raise Unresolved("'%s' is not defined in this file" % ident)

    def _binding_value(self, ident, scope, binding):
        key = (id(scope), ident)
        if key in self.memo:
            ok, v = self.memo[key]
            if ok:
                return v
            raise Unresolved(v)
        if key in self.active:
            raise Unresolved("'%s' refers to itself" % ident)
        self.active.add(key)
        try:
            v = self.value(binding.value, scope, binding.node)
            self.memo[key] = (True, v)
            return v
        except Unresolved as e:
            reason = "'%s' (line %d): %s" % (ident, binding.line, e)
            self.memo[key] = (False, reason)
            raise Unresolved(reason)
        finally:
            self.active.discard(key)


def _cleandoc(text):
    import inspect

    return inspect.cleandoc(text)


def _before(stmt, at):
    """Whether statement `stmt` ends before node `at` starts."""
    if at is None:
        return True
    end = (getattr(stmt, "end_lineno", None) or stmt.lineno, getattr(stmt, "end_col_offset", 0))
    return end <= (at.lineno, at.col_offset)


# ---------------------------------------------------------------------------
# extension calls


def _call_arguments(call, kind, resolver, scope):
    """{param: value} of an extension call, and the reasons of those that do
    not resolve ("cuda_sources: calls open(...).read(...)")."""
    params = hone_extbuild.PARAMS[kind]
    stable = hone_extbuild.STABLE_POSITIONAL[kind]
    values, reasons = {}, []

    def resolve(label, node):
        try:
            return True, resolver.value(node, scope, call)
        except Unresolved as e:
            reasons.append("%s: %s" % (label, e))
            return False, None

    positional = []
    for a in call.args:
        if isinstance(a, ast.Starred):
            ok, v = resolve("*args", a.value)
            if not ok:
                return values, reasons
            if not isinstance(v, (list, tuple)):
                reasons.append("*args: not a sequence")
                return values, reasons
            positional.extend(("value", x) for x in v)
        else:
            positional.append(("node", a))
    for i, (how, item) in enumerate(positional):
        if i >= stable:
            reasons.append(
                "argument %d of %s is positional, and torch versions differ in what "
                "it means (pass it by keyword)" % (i + 1, kind)
            )
            continue
        if how == "value":
            values[params[i]] = item
        else:
            ok, v = resolve(params[i], item)
            if ok:
                values[params[i]] = v
    for k in call.keywords:
        if k.arg is None:
            ok, v = resolve("**kwargs", k.value)
            if ok and isinstance(v, dict) and all(isinstance(x, str) for x in v):
                values.update(v)
            elif ok:
                reasons.append("**kwargs: not a dict of names")
            continue
        ok, v = resolve(k.arg, k.value)
        if ok:
            values[k.arg] = v
    if "name" not in values and not any(r.startswith("name:") for r in reasons):
        reasons.append("name: missing")
    reasons.extend(_relative_paths(values))
    return values, reasons


def _relative_paths(values):
    """A relative source or include path means a different file in hone's
    process than in the sandbox's (their working folders differ), and a
    file's bytes are not part of the key: such a call is built where it runs."""
    out = []
    for param in ("sources", "extra_include_paths"):
        paths = values.get(param)
        for p in [paths] if isinstance(paths, str) else paths or []:
            if isinstance(p, str) and not os.path.isabs(p):
                out.append(
                    "%s: '%s' is a relative path (it depends on the working folder)" % (param, p)
                )
                break
    return out


def _qualname(scope_stack):
    parts = []
    for s in scope_stack[1:]:
        if s.kind == "comprehension":
            continue
        parts.append(s.name)
        if s.kind == "function":
            parts.append("<locals>")
    if parts and parts[-1] == "<locals>":
        parts.pop()
    return ".".join(parts) if parts else "module"


class _CallFinder(ast.NodeVisitor):
    """Visits every node with its scope, qualname and try-nesting."""

    def __init__(self, scopes, module_scope, names, resolver, decorators=()):
        self.scopes = scopes
        self.stack = [module_scope]
        self.try_depth = [0]
        self.names = names
        self.resolver = resolver
        self.decorators = set(decorators)
        self.extensions = []
        self.triton = []
        self.dsl = []
        self.references = False
        self.foreign = []  # FOREIGN_BUILDERS the file calls or refers to

    def generic_visit(self, node):
        scope = self.scopes.get(node)
        if scope is None:
            return super().generic_visit(node)
        # Decorators, defaults and bases run in the enclosing scope; the
        # collector already separated them, so visiting the node's children
        # under the new scope only misattributes those (never calls' scopes
        # that matter: load_inline in a default argument is not a real case).
        self.stack.append(scope)
        self.try_depth.append(0)
        super().generic_visit(node)
        self.stack.pop()
        self.try_depth.pop()

    def visit_FunctionDef(self, node):
        if any(_is_triton_jit(d, self.names) for d in node.decorator_list):
            self.triton.append(node.name)
        for d in node.decorator_list:
            path = _decorator_path(d, self.names)
            if path in self.decorators:
                self.dsl.append({"name": node.name, "decorator": path, "line": node.lineno})
                break
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Try(self, node):
        self.try_depth[-1] += 1
        for stmt in node.body:
            self.visit(stmt)
        self.try_depth[-1] -= 1
        for part in node.handlers + node.orelse + node.finalbody:
            self.visit(part)

    visit_TryStar = visit_Try

    def visit_Name(self, node):
        path = dotted(node, self.names)
        if path in EXTENSION_FUNCS or node.id == "load_inline":
            self.references = True
        if path in FOREIGN_BUILDERS and path not in self.foreign:
            self.foreign.append(path)

    def visit_Attribute(self, node):
        path = dotted(node, self.names)
        if path in EXTENSION_FUNCS or node.attr == "load_inline":
            self.references = True
        if path in FOREIGN_BUILDERS and path not in self.foreign:
            self.foreign.append(path)
        self.generic_visit(node)

    def visit_Call(self, node):
        kind = _extension_kind(node.func, self.names)
        if kind:
            self.extensions.append(self._entry(node, kind))
        self.generic_visit(node)

    def _entry(self, node, kind):
        scope = self.stack[-1]
        values, reasons = _call_arguments(node, kind, self.resolver, scope)
        entry = {
            "call": kind,
            "line": node.lineno,
            "scope": _qualname(self.stack),
            "in_try": self.try_depth[-1] > 0,
            "resolved": not reasons,
            "unresolved_reason": "; ".join(reasons),
        }
        if isinstance(values.get("name"), str):
            entry["name"] = values["name"]
        if reasons:
            entry["args"] = _jsonable(values)
        else:
            entry["args"] = hone_extbuild.canonical_args(kind, values)
            entry["key"] = hone_extbuild.extension_key(kind, values)
        return entry


def _jsonable(v):
    return json.loads(json.dumps(v, default=repr))


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


def _parents(tree):
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


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
