import inspect
import textwrap


class ASTSource:
    def __init__(self, fn, constants=None):
        self.fn = fn
        self.constants = dict(constants or {})


class KernelInterface:
    """kernel[grid](*args, **kwargs) is kernel.run(*args, grid=grid,
    warmup=False, **kwargs), as in Triton."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


class JITFunction(KernelInterface):
    def __init__(self, fn):
        # Triton reads the source at decoration; it fails with "could not get
        # source code" where the file cannot be read.
        self.src = textwrap.dedent(inspect.getsource(fn))
        self.fn = fn
        self.__name__ = fn.__name__
        self.arg_names = list(inspect.signature(fn).parameters)
        self.cache = {}

    def run(self, *args, grid, warmup, **kwargs):
        """Compiles once per set of keyword (constexpr) values; with warmup,
        compiles without launching, as Triton's warmup does."""
        key = tuple(sorted(kwargs.items()))
        if key not in self.cache:
            from .. import compiler
            self.cache[key] = compiler.compile(ASTSource(self, kwargs))
        return None if warmup else self.cache[key]


def jit(fn):
    return JITFunction(fn)
