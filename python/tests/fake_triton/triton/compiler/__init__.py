class CompilationError(Exception):
    pass


compiled = []


def compile(src, target=None, options=None):
    """Compiles `src` (an ASTSource: its fn): fails as Triton does when the
    kernel's source says FAIL."""
    if "FAIL" in src.fn.src:
        raise CompilationError(f"at 2:4:\n{src.fn.src.splitlines()[1]}\n    ^\nunsupported")
    compiled.append(src.fn.__name__)
    return object()
