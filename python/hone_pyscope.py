"""Scopes and bindings of a ModelNew file, for hone's static scan
(hone_pyscan.py): one walk of the tree (`_Collector`) fills a `Scope` per
module, class, function, lambda and comprehension with the `Binding`s of each
name (the statement that binds it and, for a plain `name = value`, the value),
under Python's rules (global, nonlocal, a walrus in a comprehension, class
bodies skipped by the functions inside them). `_parents` is the map of each
node to its parent that the walk reads. What a binding's value is, is the
Resolver's (hone_pyresolve.py). Standard library only; nothing is evaluated.
"""

import ast


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


def _parents(tree):
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents
