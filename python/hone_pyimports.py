"""What the names of a ModelNew file stand for through its imports, for
hone's static scan (hone_pyscan.py): the import map (`_import_map`: name ->
dotted path, aliases of load_inline included), `dotted` paths of Name and
Attribute chains, which calls are torch.utils.cpp_extension's load_inline /
load (`EXTENSION_FUNCS`, `_extension_kind`) or another package's extension
builder (`FOREIGN_BUILDERS`), and which decorators are triton.jit. Standard
library only; nothing is imported from the scanned file.
"""

import ast

CPP_EXTENSION = "torch.utils.cpp_extension"
EXTENSION_FUNCS = {CPP_EXTENSION + ".load_inline": "load_inline", CPP_EXTENSION + ".load": "load"}
# Extension builders of other packages: a file that calls one builds kernels
# of its own (FlashInfer-Trace's default tvm-ffi binding), though not through
# torch's builder, which hone prebuilds; the sandbox runs them as written.
FOREIGN_BUILDERS = {"tvm_ffi.cpp.load", "tvm_ffi.cpp.load_inline"}


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
