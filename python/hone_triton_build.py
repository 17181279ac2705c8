"""hone's trusted builder of Triton's own C helper modules.

    python3 hone_triton_build.py CACHE_DIR [PENDING_DIR]     -> exit 0

Triton compiles two kinds of C module with gcc the first time it needs them:
`cuda_utils` (the same for every kernel) and a `__triton_launcher` per kernel
signature (the types of its arguments). Each is cached under a key that is
the hash of its C source. Compiled inside a candidate's sandbox they cost
about 1.5 s and 0.4 s of every evaluation, and a sandbox must never write a
cache another candidate reads: a planted launcher would run in someone
else's evaluation.

So sandboxes read this cache (CACHE_DIR, Triton's own layout) and never
write it; this program, run by hone outside any sandbox, is the only writer.
It builds cuda_utils from Triton's own driver.c, and a launcher for each
request a sandbox left in PENDING_DIR (python/hone_compat.py writes them:
{"kind": "launcher", "signature": [...]}) by calling Triton's own
make_launcher on that signature. A request names argument types only, each
checked against a small vocabulary; the C source is always Triton's, so the
cache holds exactly what Triton would have built, under the key of its
source. Requests are removed once handled, built or refused.

Trusted, like the oracle: it runs Triton's code, never a candidate's.
"""

import json
import os
import re
import sys

# A signature entry: a pointer to an element type, a scalar type, or a
# constexpr slot; tuples of those as lists. Anything else is refused.
_ELEMENT = re.compile(r"^\*?k?[a-z0-9]{1,12}$")
_WORDS = {"constexpr", "nvTmaDesc"}
MAX_ARGS = 256
MAX_REQUESTS = 256


def _valid(entry, depth=0):
    if isinstance(entry, str):
        return entry in _WORDS or bool(_ELEMENT.match(entry))
    if isinstance(entry, list) and depth < 4 and len(entry) <= MAX_ARGS:
        return all(_valid(e, depth + 1) for e in entry)
    return False


def _as_signature(entry):
    return tuple(_as_signature(e) for e in entry) if isinstance(entry, list) else entry


def _driver():
    import triton.backends.nvidia.driver as driver
    from triton.runtime.build import compile_module_from_src

    return driver, compile_module_from_src


def build_cuda_utils():
    driver, compile_module_from_src = _driver()
    src = open(os.path.join(driver.dirname, "driver.c")).read()
    compile_module_from_src(
        src=src,
        name="cuda_utils",
        library_dirs=driver.library_dirs(),
        include_dirs=driver.include_dirs,
        libraries=driver.libraries,
    )


def build_launcher(request):
    signature = request.get("signature")
    if not isinstance(signature, list) or len(signature) > MAX_ARGS or not _valid(signature):
        raise ValueError("not a signature of argument types")
    driver, compile_module_from_src = _driver()
    sig = {i: _as_signature(s) for i, s in enumerate(signature)}
    src = driver.make_launcher({}, sig, None)
    compile_module_from_src(
        src=src,
        name="__triton_launcher",
        library_dirs=driver.library_dirs(),
        include_dirs=driver.include_dirs,
        libraries=driver.libraries,
    )


def handle(pending):
    names = sorted(n for n in os.listdir(pending) if n.endswith(".json"))[:MAX_REQUESTS]
    for name in names:
        path = os.path.join(pending, name)
        working = path + ".working"
        try:
            os.rename(path, working)  # another builder may have taken it
        except OSError:
            continue
        try:
            with open(working) as f:
                request = json.loads(f.read(1 << 16))
            if isinstance(request, dict) and request.get("kind") == "launcher":
                build_launcher(request)
        except Exception as e:  # a refused or failed request costs only its own build
            print(f"hone_triton_build: {name}: {type(e).__name__}: {e}", file=sys.stderr)
        finally:
            try:
                os.unlink(working)
            except OSError:
                pass


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    os.environ["TRITON_CACHE_DIR"] = os.path.abspath(argv[1])
    os.makedirs(argv[1], exist_ok=True)
    os.umask(0o022)  # sandboxes, another user, read what it writes
    try:
        build_cuda_utils()
    except Exception as e:
        print(f"hone_triton_build: cuda_utils: {type(e).__name__}: {e}", file=sys.stderr)
    if len(argv) == 3 and os.path.isdir(argv[2]):
        handle(argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
