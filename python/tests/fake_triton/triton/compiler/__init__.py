class CompilationError(Exception):
    pass


compiled = []


def compile(src, target=None, options=None):
    """Compiles `src` (an ASTSource: its fn and constexpr values): fails as
    Triton does when the kernel's source says FAIL, or when a config asks for
    a BLOCK over 1024 (more shared memory than a GPU has)."""
    if "FAIL" in src.fn.src:
        raise CompilationError(f"at 2:4:\n{src.fn.src.splitlines()[1]}\n    ^\nunsupported")
    if src.constants.get("BLOCK", 0) > 1024:
        raise CompilationError("out of resource: shared memory")
    compiled.append(src.fn.__name__)
    return object()
