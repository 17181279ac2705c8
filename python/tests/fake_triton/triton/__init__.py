"""A stand-in for Triton (Debian has no package), for tests of what
python/hone_compat.py and python/hone_triton_build.py touch of it: the JIT
decorator reads its function's source as Triton's does, triton.compiler
.compile is what JIT functions call, the cache manager and the launcher
maker keep Triton's names and signatures. Nothing runs on a GPU."""
from .runtime.jit import jit, JITFunction  # noqa: F401
from .runtime.autotuner import autotune, Config  # noqa: F401
from . import language  # noqa: F401


def cdiv(a, b):
    return (a + b - 1) // b
