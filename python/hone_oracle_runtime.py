"""The interpreter the oracle runs in (hone_oracle.py): what hone needs to
embed it in a compat candidate's sandbox (`python_runtime`, `torch_dir`),
where its compiled bytecode is kept (`use_bytecode_dir`,
`torch_has_bytecode`), the `--runtime` answer given without importing torch
(`print_runtime`, exit code `EXIT_NO_TORCH` when torch or numpy is
missing), and the devices' names (`device_name`).

torch is this module's global `torch`, set by hone_oracle.main(), and only
`device_name` uses it; nothing of hone's is imported.
"""

import json
import os
import platform
import sys

EXIT_NO_TORCH = 3

torch = None  # set by hone_oracle.main(), which imports it


def python_runtime():
    """What hone needs to embed this interpreter in a compat candidate's
    sandbox: the shared libpython, the prefixes and the module path."""
    import sysconfig

    lib = None
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    for name in (sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LDLIBRARY")):
        if name and name.endswith(tuple([".so"] + [f".so.{i}" for i in range(10)]) + (".0",)):
            for d in (libdir, os.path.join(sys.base_prefix, "lib")):
                if d and os.path.exists(os.path.join(d, name)):
                    lib = os.path.join(d, name)
                    break
        if lib:
            break
    return {
        "libpython": lib,
        "prefix": sys.prefix,
        "base_prefix": sys.base_prefix,
        "exec_prefix": sys.exec_prefix,
        "sys_path": [p for p in sys.path if p],
        "torch_dir": torch_dir(),
        "pycache_prefix": sys.pycache_prefix or "",
    }


def torch_has_bytecode():
    """Whether torch's sources have their compiled bytecode beside them, as
    pip and Debian install them. A prefix would then hide it: Python reads
    bytecode only under the prefix, so every fresh hone cache would compile
    torch again (2-4 s of a machine's first evaluation)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return False
    try:
        return os.path.exists(importlib.util.cache_from_source(spec.origin))
    except (NotImplementedError, ValueError):
        return False


def use_bytecode_dir(path):
    """Keeps compiled bytecode in `path` (hone's cache). Where site-packages
    holds no .pyc files and PYTHONDONTWRITEBYTECODE is set, as in many
    containers, every process compiles torch's sources again: 4-5 s of each
    `import torch`. With a prefix the interpreter writes them once, under
    `path` only (never beside the sources), and later processes read them.
    An environment that names its own prefix (PYTHONPYCACHEPREFIX) keeps
    it; where torch has its bytecode beside it, none is set."""
    if sys.pycache_prefix or torch_has_bytecode():
        return
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        print(
            f"hone oracle: bytecode folder {path}: {e.strerror}; compiling in memory",
            file=sys.stderr,
        )
        return
    sys.pycache_prefix = os.path.abspath(path)
    sys.dont_write_bytecode = False


def torch_dir():
    """torch's package folder, found without importing torch, so that
    `--runtime` and the hello give the same answer."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    return os.path.dirname(os.path.abspath(spec.origin))


def print_runtime():
    """`--runtime`: what the hello's "executable" and "runtime" will say, in
    a tenth of a second, so that hone can start a candidate's sandbox
    importing torch while this interpreter's oracle imports it too. Exit code
    3 when torch or numpy is not installed here."""
    import importlib.util

    for name in ("torch", "numpy"):
        if importlib.util.find_spec(name) is None:
            print(f"hone oracle: {sys.executable} has no {name}", file=sys.stderr)
            return EXIT_NO_TORCH
    print(json.dumps({"executable": sys.executable, "runtime": python_runtime()}))
    return 0


def device_name(device):
    if device.startswith("cuda"):
        return torch.cuda.get_device_name(torch.device(device))
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return "cpu: " + line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu: " + (platform.processor() or platform.machine())
