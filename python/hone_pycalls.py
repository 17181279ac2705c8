"""The extension builds and kernels of a ModelNew file, for hone's static
scan (hone_pyscan.py): `_CallFinder` visits every node with its scope,
qualname and try-nesting, and finds the calls of
torch.utils.cpp_extension.load_inline / load (each with its arguments
resolved statically by hone_pyresolve.py where they can be, and then the
canonical arguments and key of hone_extbuild.py), references to them and
to other packages' builders, triton.jit functions and the kernels of a
kernel DSL's decorators. Standard library only at import.
"""

import ast
import json
import os

import hone_extbuild  # (standard library only at import)
from hone_pyimports import (
    EXTENSION_FUNCS,
    FOREIGN_BUILDERS,
    _decorator_path,
    _extension_kind,
    _is_triton_jit,
    dotted,
)
from hone_pyresolve import Unresolved


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

    def _see(self, node, name):
        path = dotted(node, self.names)
        if path in EXTENSION_FUNCS or name == "load_inline":
            self.references = True
        if path in FOREIGN_BUILDERS and path not in self.foreign:
            self.foreign.append(path)

    def visit_Name(self, node):
        self._see(node, node.id)

    def visit_Attribute(self, node):
        self._see(node, node.attr)
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
