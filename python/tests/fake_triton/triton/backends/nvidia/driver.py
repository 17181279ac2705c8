import os

dirname = os.path.dirname(os.path.realpath(__file__))
include_dirs = [os.path.join(dirname, "include")]
libraries = ["libcuda.so.1"]


def library_dirs():
    return []


_TYPES = {"i32": "int32_t", "i64": "int64_t", "fp32": "float", "constexpr": None}


def make_launcher(constants, signature, tensordesc_meta):
    """A launcher's C source, from the argument types alone (as Triton's)."""
    parts = []
    for ty in signature.values():
        if isinstance(ty, tuple):
            parts.append("tuple")
        elif ty.startswith("*"):
            parts.append("CUdeviceptr")
        else:
            parts.append(_TYPES[ty] or "")
    return "/* launcher */ " + ", ".join(parts)
