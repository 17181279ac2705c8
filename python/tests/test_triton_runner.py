"""Tests for the Triton part of the compat runner (python/hone_lang_triton.py: what the first call
compiled and tuned, compilations that failed, the shared cache of Triton's C
helper modules) and for python/hone_triton_build.py, hone's trusted builder
of that cache, over a stand-in for Triton (fake_triton/: Debian has no
Triton package; the real one runs on the GPU, scripts/gpu-check-triton).

Run: python3 -m unittest discover -s python/tests -p 'test_triton_runner.py'
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "fake_triton"))

import hone_compat  # noqa: E402
import hone_lang_triton  # noqa: E402
import hone_triton_build  # noqa: E402


def events(fn):
    """fn()'s result and the hone-compat-event lines it printed."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        result = fn()
    tag = "hone-compat-event: "
    return result, [
        json.loads(line[len(tag) :]) for line in err.getvalue().splitlines() if line.startswith(tag)
    ]


CANDIDATE = """
import triton
import triton.language as tl


@triton.jit
def good(x_ptr, n, BLOCK: tl.constexpr):
    pass


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128}, num_warps=8)],
                 key=["n"])
@triton.jit
def tuned(x_ptr, n, BLOCK: tl.constexpr):
    pass


@triton.jit
def bad(x_ptr):
    FAIL = 1


def run():
    good[(1,)](0, 4, BLOCK=16)
    tuned[(1,)](0, 4)
    try:
        bad[(1,)](0)
    except Exception as e:  # a fallback: the file goes on without its kernel
        return f"fell back: {type(e).__name__}"
"""


class TritonRunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hone-triton-test-")
        os.environ["TRITON_CACHE_DIR"] = os.path.join(self.tmp, "private")
        os.environ.pop("TRITON_CACHE_MANAGER", None)
        self.part = hone_lang_triton.part(hone_compat._event, hone_compat.describe_exception)
        import triton.compiler

        triton.compiler.compiled.clear()
        self.original_compile = triton.compiler.compile

    def tearDown(self):
        import triton.backends.nvidia.driver as driver
        import triton.compiler

        triton.compiler.compile = self.original_compile
        driver.make_launcher = (
            self.original_launcher if hasattr(self, "original_launcher") else driver.make_launcher
        )
        os.environ.pop("TRITON_CACHE_MANAGER", None)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def load(self):
        # The path cannot be opened: the runner gives @triton.jit its source.
        return hone_compat._exec_source(
            CANDIDATE, "/nonexistent/cand.py", "hone_test_triton_candidate", {}
        )

    def test_the_runner_takes_the_language_part_the_config_names_not_the_source_text(self):
        with open(hone_lang_triton.__file__) as f:
            source = f.read()
        part = hone_compat._language_part(
            {"language": "triton", "language_source": source, "candidate_source": "plain torch"}
        )
        self.assertEqual(type(part).__name__, "TritonPart")
        # A file that mentions Triton but was not taken for Triton gets no Triton set-up.
        self.assertIsNone(
            hone_compat._language_part(
                {"language": "load_inline", "candidate_source": "import triton"}
            )
        )
        self.assertIsNone(hone_compat._language_part({"candidate_source": "import triton"}))

    def test_compilations_are_counted_and_a_failed_one_is_reported(self):
        self.part.watch_compiles()
        module = self.load()
        result, evs = events(module.run)
        self.assertEqual(result, "fell back: CompilationError")
        failed = [e for e in evs if e["event"] == "jit_compile_failed"]
        self.assertEqual(len(failed), 1, evs)
        self.assertEqual(failed[0]["kernel"], "bad")
        self.assertEqual(failed[0]["type"], "CompilationError")
        self.assertIn("unsupported", failed[0]["message"])
        self.assertEqual(failed[0]["file"], "/nonexistent/cand.py")
        self.assertEqual(self.part.compiles, {"good": 1, "tuned": 2})

    def test_the_first_call_is_reported_kernel_by_kernel(self):
        self.part.watch_compiles()
        module = self.load()
        events(module.run)
        _, evs = events(lambda: self.part.loaded(module))
        self.assertEqual(len(evs), 1)
        kernels = {k["name"]: k for k in evs[0]["kernels"]}
        self.assertEqual(kernels["good"], {"name": "good", "compiled": 1})
        self.assertEqual(kernels["tuned"]["configs"], 2)
        self.assertEqual(kernels["tuned"]["compiled"], 2)
        self.assertEqual(kernels["tuned"]["best"], "BLOCK: 128, num_warps: 8")
        self.assertEqual(kernels["tuned"]["tuning_seconds"], 0.25)

    def shared_cache(self):
        """A shared cache that holds the launcher of (*fp32, i32) only, as
        the trusted builder made it."""
        shared = os.path.join(self.tmp, "shared")
        os.environ["TRITON_CACHE_DIR"] = shared
        import triton.backends.nvidia.driver as driver
        import triton.runtime.build as build

        build.compile_module_from_src(
            driver.make_launcher({}, {0: "*fp32", 1: "i32"}, None), "__triton_launcher"
        )
        os.environ["TRITON_CACHE_DIR"] = os.path.join(self.tmp, "private")
        build.built.clear()
        return shared

    def test_launchers_come_from_the_shared_cache_and_missing_ones_are_asked_for(self):
        import triton.backends.nvidia.driver as driver
        import triton.runtime.build as build

        self.original_launcher = driver.make_launcher
        shared = self.shared_cache()
        records = os.path.join(self.tmp, "records")
        self.part.shared_modules(shared, records)
        # A signature the cache has: read from it, nothing built or asked for.
        path = build.compile_module_from_src(
            driver.make_launcher({}, {0: "*fp32", 1: "i32"}, None), "__triton_launcher"
        )
        self.assertTrue(path.startswith(shared), path)
        self.assertEqual(build.built, [])
        self.assertFalse(os.path.exists(records))
        # One it lacks: built here, privately, and its signature left for the builder.
        sig = {0: "*fp32", 1: "*fp32", 2: "i64", 3: "constexpr"}
        path = build.compile_module_from_src(
            driver.make_launcher({}, sig, None), "__triton_launcher"
        )
        self.assertTrue(path.startswith(os.path.join(self.tmp, "private")), path)
        self.assertEqual(build.built, ["__triton_launcher"])
        [name] = os.listdir(records)
        with open(os.path.join(records, name)) as f:
            self.assertEqual(
                json.load(f),
                {"kind": "launcher", "signature": ["*fp32", "*fp32", "i64", "constexpr"]},
            )

    def kept_kernel(self, kernels, key, name):
        """A kernel folder as hone's kernel store keeps it: the group file
        names the paths of the sandbox that compiled it."""
        folder = os.path.join(kernels, key)
        os.makedirs(folder)
        children = {}
        for ext in ("json", "cubin"):
            with open(os.path.join(folder, f"{name}.{ext}"), "w") as f:
                f.write(ext)
            children[f"{name}.{ext}"] = f"/tmp/hone-compat-gone/sandbox/triton/{key}/{name}.{ext}"
        with open(os.path.join(folder, f"__grp__{name}.json"), "w") as f:
            json.dump({"child_paths": children}, f)
        return folder

    def test_kernels_an_earlier_evaluation_of_the_file_compiled_are_loaded_not_compiled(self):
        import triton.backends.nvidia.driver as driver

        self.original_launcher = driver.make_launcher
        kernels = os.path.join(self.tmp, "kernels")
        kept = self.kept_kernel(kernels, "KEPTKEY", "relu_kernel")
        partial = self.kept_kernel(kernels, "PARTIALKEY", "gelu_kernel")
        os.unlink(os.path.join(partial, "gelu_kernel.cubin"))
        self.part.shared_modules(self.shared_cache(), os.path.join(self.tmp, "r"), kernels)
        manager = sys.modules["hone_triton_cache"].HoneTritonCache
        group = manager("KEPTKEY").get_group("relu_kernel.json")
        self.assertEqual(
            group,
            {
                "relu_kernel.json": os.path.join(kept, "relu_kernel.json"),
                "relu_kernel.cubin": os.path.join(kept, "relu_kernel.cubin"),
            },
        )
        self.assertEqual(self.part.stored, {"relu_kernel": 1})
        # A kernel the store holds in part is compiled again, privately.
        manager = manager("PARTIALKEY")
        self.assertIsNone(manager.get_group("gelu_kernel.json"))
        self.assertEqual(self.part.stored, {"relu_kernel": 1})
        # Written into the private cache, never into the store.
        path = manager.put(b"cubin", "gelu_kernel.cubin")
        self.assertTrue(path.startswith(os.path.join(self.tmp, "private")), path)

    def test_the_report_says_which_kernels_were_loaded_rather_than_compiled(self):
        self.part.watch_compiles()
        module = self.load()
        events(module.run)
        self.part.stored = {"tuned": 2}
        _, evs = events(lambda: self.part.loaded(module))
        kernels = {k["name"]: k for k in evs[0]["kernels"]}
        self.assertEqual(kernels["tuned"]["stored"], 2)
        self.assertNotIn("stored", kernels["good"])

    def test_the_builder_fills_the_shared_cache_from_requests_and_refuses_odd_ones(self):
        cache = os.path.join(self.tmp, "cache")
        pending = os.path.join(self.tmp, "pending")
        os.makedirs(pending)
        good = {"kind": "launcher", "signature": ["*fp32", ["i32", "i32"], "constexpr"]}
        odd = {"kind": "launcher", "signature": ['i32); system("rm -rf /"']}
        for name, request in (("a.json", good), ("b.json", odd)):
            with open(os.path.join(pending, name), "w") as f:
                json.dump(request, f)
        with open(os.path.join(pending, "c.json"), "w") as f:
            f.write("not json")
        import triton.runtime.build as build

        build.built.clear()
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(hone_triton_build.main(["hone_triton_build.py", cache, pending]), 0)
        self.assertEqual(sorted(build.built), ["__triton_launcher", "cuda_utils"])
        self.assertEqual(os.listdir(pending), [], "every request is handled once")
        self.assertIn("b.json: ValueError: not a signature of argument types", err.getvalue())
        self.assertIn("c.json", err.getvalue())

    def test_signature_vocabulary(self):
        for ok in ("*fp32", "*kbf16", "i64", "u8", "constexpr", "nvTmaDesc", ["i32", ["fp16"]]):
            self.assertTrue(hone_triton_build._valid(ok), ok)
        for bad in ("*fp32 x", "", "I32", "a" * 20, 3, None, [[[[["i32"]]]]], {"a": "i32"}):
            self.assertFalse(hone_triton_build._valid(bad), bad)


if __name__ == "__main__":
    unittest.main()
