"""TinyDSL, a kernel "DSL" for hone's tests: @tinydsl.kernel reads its
function's source when the module runs, as @triton.jit does (so it fails
where a loader keeps no source), "compiles" it, and counts its launches."""

import inspect
import textwrap


class Kernel:
    def __init__(self, fn):
        self.source = textwrap.dedent(inspect.getsource(fn))
        self.fn = fn
        self.launches = 0

    def __call__(self, *args):
        self.launches += 1
        return self.fn(*args)


def kernel(fn):
    return Kernel(fn)
