"""The constant values of a ModelNew file's expressions, for hone's static
scan (hone_pyscan.py): `Resolver` computes literals and what is built from
them (names bound once, concatenations, f-strings, joins, dedents, formats,
slices) through the scopes of hone_pyscope.py, and raises `Unresolved` with
the reason for anything else. Hostile input is expected: nothing is
evaluated, sizes are capped (`MAX_STRING`, `MAX_ITEMS`) and so is the depth
of nested resolutions (`MAX_DEPTH`). Standard library only.
"""

import ast
import string
import textwrap

from hone_pyimports import dotted

MAX_STRING = 16 << 20  # a resolved value larger than this is "too large"
MAX_ITEMS = 100000
MAX_DEPTH = 100  # nested resolutions (a = b + c, b = ...)


class Unresolved(Exception):
    """A value hone does not compute statically; the message says why."""


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
