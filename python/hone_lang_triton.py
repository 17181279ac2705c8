"""The Triton part of hone's compat runner (python/hone_compat.py): what the
runner does, inside the sandbox, for a candidate the C++ side took for a
Triton file (src/lang/modelnew_languages.cc).

hone embeds this source in the runner's config ("language_source") only for
a candidate whose language is "triton" (src/compat/compat_candidate.cc
WriteCompatShim: python/hone_lang_<language>.py, when there is one); the
runner executes it as the module `hone_lang_triton` and calls `part(event,
describe)` for the object whose `before_load(cfg)` runs before the
candidate's module does and whose `loaded(module)` runs after its first
call. It imports nothing of hone's: the runner hands it its event writer and
its exception describer (scripts/check-layers, PYTHON_LAYERS).

Everything here runs inside the sandbox and is as untrusted as the
candidate (docs/VERIFICATION.md, "Triton"): it only adds words to a verdict
and speed to a load.
"""

import hashlib
import json
import os
import sys
import sysconfig
import types
from typing import Any, Callable, Dict, List, Optional, Tuple

# The runner's `hone-compat-event:` writer: event(kind, **fields).
Event = Callable[..., None]
# The runner's description of an exception (file, line, message, ...).
Describe = Callable[[BaseException], Dict[str, Any]]


def prewarm() -> None:
    """A warm sandbox's head start: Triton's imports, when it is installed."""
    try:
        import triton  # noqa: F401
        import triton.language  # noqa: F401
    except ImportError:
        pass


def loaded_library_dir(stem: str) -> Optional[str]:
    """The folder of a shared library this process has mapped ("libcuda.so"),
    from /proc/self/maps; None when it has none."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if line.strip() else ""
                if os.path.basename(path).startswith(stem):
                    return os.path.dirname(path)
    except OSError:
        pass
    return None


def environment() -> None:
    """Triton inside the sandbox (docs/VERIFICATION.md, "Triton"): its kernel
    cache and home in this sandbox's scratch folder, private to the
    evaluation; the CUDA driver found where the sandbox already loaded it
    (Triton would otherwise run ldconfig). Compiling (Triton's LLVM passes,
    ptxas) happens while the module loads and makes its first call, before
    the sandbox forbids new processes."""
    scratch = os.getcwd()
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(scratch, "triton"))
    os.environ.setdefault("TRITON_HOME", scratch)
    libcuda = loaded_library_dir("libcuda.so")
    if libcuda:
        os.environ.setdefault("TRITON_LIBCUDA_PATH", libcuda)


def kernels_of(module: Any) -> List[Tuple[str, Any, Any]]:
    """The Triton kernels a module defines, as (name, JIT function, autotuner
    or None), looked through @triton.autotune and @triton.heuristics."""
    jit = sys.modules.get("triton.runtime.jit")
    tuning = sys.modules.get("triton.runtime.autotuner")
    if jit is None:
        return []
    out = []
    for name, obj in list(vars(module).items()):
        fn, tuner, depth = obj, None, 0
        while fn is not None and not isinstance(fn, jit.JITFunction) and depth < 8:
            if tuning is not None and isinstance(fn, tuning.Autotuner):
                tuner = fn
            fn, depth = getattr(fn, "fn", None), depth + 1
        if isinstance(fn, jit.JITFunction):
            out.append((name, fn, tuner))
    return out


class TritonPart:
    """One candidate's Triton set-up and report. `compiles`: kernel name ->
    variants compiled here; `stored`: kernel name -> variants loaded from
    the file's earlier evaluations instead."""

    def __init__(self, event: Event, describe: Describe) -> None:
        self.event = event
        self.describe = describe
        self.compiles: Dict[str, int] = {}
        self.stored: Dict[str, int] = {}

    def before_load(self, cfg: Dict[str, Any]) -> None:
        """Before the candidate's module runs: the environment, the watch on
        compilations, and the shared cache the C++ side named (the Triton
        loader's "triton" entry of the config, src/lang/triton_modules.h).
        A failure only loses the reporting or the speed, never the load."""
        environment()
        try:
            self.watch_compiles()
        except Exception as e:  # an unexpected Triton: only the reporting is lost
            self.event("triton_watch", ok=False, error=f"{type(e).__name__}: {e}")
        shared = cfg.get("triton") or {}
        if shared.get("shared"):
            try:
                self.shared_modules(
                    shared["shared"],
                    os.path.join(os.getcwd(), shared.get("records", "triton-modules")),
                    shared.get("kernels"),
                )
            except Exception as e:  # Triton then builds its modules here, as it would alone
                self.event("triton_shared_cache", ok=False, error=f"{type(e).__name__}: {e}")

    def watch_compiles(self) -> None:
        """Counts the kernels Triton compiles, and reports each compilation
        that fails in a `jit_compile_failed` event, even when the file
        catches the error and falls back to PyTorch (the verdict then says
        why it launched nothing of its own). JIT functions bind
        triton.compiler.compile when they first run, so the wrapper is in
        place for every kernel of the file."""
        import triton.compiler as tc

        original = tc.compile
        counts, event, describe = self.compiles, self.event, self.describe

        def compile(src: Any, *args: Any, **kwargs: Any) -> Any:
            name = getattr(getattr(src, "fn", None), "__name__", "?")
            try:
                kernel = original(src, *args, **kwargs)
            except Exception as e:
                event("jit_compile_failed", kernel=name, **describe(e))
                raise
            counts[name] = counts.get(name, 0) + 1
            return kernel

        tc.compile = compile

    def shared_modules(self, shared: str, records: str, kernels: Optional[str] = None) -> None:
        """Triton's C helper modules (cuda_utils, a launcher per kernel
        signature) from hone's shared cache, which only hone's trusted
        builder writes (python/hone_triton_build.py): read first, before
        this sandbox's private cache. A launcher the shared cache lacks is
        compiled here as Triton would, and its signature left in `records`
        for the builder. Kernels this very file compiled in an earlier
        evaluation come from `kernels`, its entry of hone's kernel store
        (src/lang/triton_kernel_store.h), read-only: Triton then loads them
        rather than compiling them again."""
        import triton.backends.nvidia.driver as driver
        import triton.runtime.build as build
        import triton.runtime.cache as cache

        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        stored = self.stored

        class HoneTritonCache(cache.FileCacheManager):  # type: ignore[misc]
            def _kept(self, root: Optional[str], filename: str) -> Optional[str]:
                path = os.path.join(root, self.key, filename) if root else None
                return path if path and os.path.isfile(path) else None

            def get_file(self, filename: str) -> Any:
                return (
                    self._kept(shared, filename)
                    or self._kept(kernels, filename)
                    or super().get_file(filename)
                )

            def get_group(self, filename: str) -> Any:
                group = self._kept(kernels, "__grp__" + filename)
                if group is None:
                    return super().get_group(filename)
                # Its paths name the scratch folder of the evaluation that
                # compiled it: the files are beside it here.
                try:
                    with open(group) as f:
                        children = json.load(f)["child_paths"]
                    found = {
                        child: self._kept(kernels, os.path.basename(path))
                        for child, path in children.items()
                    }
                except (OSError, ValueError, KeyError, TypeError, AttributeError):
                    found = {}
                if not found or None in found.values():
                    return super().get_group(filename)
                name = filename[: -len(".json")] if filename.endswith(".json") else filename
                stored[name] = stored.get(name, 0) + 1
                return found

        module = types.ModuleType("hone_triton_cache")
        setattr(module, "HoneTritonCache", HoneTritonCache)
        sys.modules["hone_triton_cache"] = module
        os.environ["TRITON_CACHE_MANAGER"] = "hone_triton_cache:HoneTritonCache"

        def as_list(sig: Any) -> Any:
            return [as_list(s) for s in sig] if isinstance(sig, tuple) else sig

        make = driver.make_launcher

        def make_launcher(
            constants: Any, signature: Any, tensordesc_meta: Any, *args: Any, **kwargs: Any
        ) -> Any:
            src = make(constants, signature, tensordesc_meta, *args, **kwargs)
            if not tensordesc_meta:
                digest = hashlib.sha256((src + build.platform_key()).encode("utf-8")).hexdigest()
                if not os.path.isfile(
                    os.path.join(shared, cache._base32(digest), "__triton_launcher" + suffix)
                ):
                    request = json.dumps(
                        {"kind": "launcher", "signature": as_list(list(signature.values()))}
                    )
                    os.makedirs(records, exist_ok=True)
                    name = hashlib.sha256(request.encode()).hexdigest()[:32] + ".json"
                    with open(os.path.join(records, name), "w") as f:
                        f.write(request)
            return src

        driver.make_launcher = make_launcher

    def loaded(self, module: Any) -> None:
        """What the first call compiled and tuned, as a `jit_kernels` event:
        per kernel how many variants it compiled (and how many of those
        Triton loaded from this file's earlier evaluations instead), its
        autotuner's configs, the one it chose and the seconds its
        benchmarking took (untrusted words for the verdict)."""
        kernels = []
        for name, fn, tuner in kernels_of(module):
            entry: Dict[str, Any] = {"name": getattr(fn, "__name__", name)}
            kernel = getattr(getattr(fn, "fn", None), "__name__", entry["name"])
            entry["compiled"] = self.compiles.get(kernel, 0)
            if self.stored.get(kernel):
                entry["stored"] = self.stored[kernel]
            if tuner is not None:
                entry["configs"] = len(getattr(tuner, "configs", []) or [])
                best = getattr(tuner, "best_config", None)
                if best is not None:
                    entry["best"] = str(best)
                seconds = getattr(tuner, "bench_time", None)
                if isinstance(seconds, (int, float)):
                    entry["tuning_seconds"] = round(float(seconds), 4)
            kernels.append(entry)
        if kernels:
            self.event("jit_kernels", kernels=kernels)


def part(event: Event, describe: Describe) -> TritonPart:
    """The runner's entry point (python/hone_compat.py's LanguagePart)."""
    return TritonPart(event, describe)
