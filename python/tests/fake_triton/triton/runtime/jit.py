import inspect
import textwrap


class ASTSource:
    def __init__(self, fn):
        self.fn = fn


class JITFunction:
    def __init__(self, fn):
        # Triton reads the source at decoration; it fails with "could not get
        # source code" where the file cannot be read.
        self.src = textwrap.dedent(inspect.getsource(fn))
        self.fn = fn
        self.__name__ = fn.__name__
        self.cache = {}

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            key = tuple(sorted(kwargs.items()))
            if key not in self.cache:
                from .. import compiler

                self.cache[key] = compiler.compile(ASTSource(self))
            return self.cache[key]

        return launch


def jit(fn):
    return JITFunction(fn)
