"""Tests for python/hone_pyscan.py, the static scan of ModelNew files.

Run: python3 -m unittest discover -s python/tests -p 'test_pyscan.py'

Standard library only: the scanner must not need torch, and neither do these
tests (they run under scripts/test-oracle's Python, which has it, and under
any python3).
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
SCANNER = os.path.join(PYTHON_DIR, "hone_pyscan.py")
sys.path.insert(0, PYTHON_DIR)

import hone_extbuild  # noqa: E402
import hone_pyscan  # noqa: E402


def scan(text, path="cand.py"):
    return hone_pyscan.scan(textwrap.dedent(text), path)


def only_extension(result):
    assert len(result["extensions"]) == 1, result["extensions"]
    return result["extensions"][0]


class ModelNewFormsTest(unittest.TestCase):
    def how(self, text):
        r = scan(text)
        self.assertTrue(r["ok"], r["error"])
        return r["model_new"]

    def test_class_of_nn_module(self):
        m = self.how(
            """
            import torch.nn as nn
            class ModelNew(nn.Module):
                pass
            """
        )
        self.assertEqual(m, {"defined": True, "how": "class", "line": 3})

    def test_class_of_torch_nn_module_and_no_base(self):
        self.assertEqual(
            self.how("import torch\nclass ModelNew(torch.nn.Module): pass\n")["how"], "class"
        )
        self.assertEqual(self.how("class ModelNew: pass\n")["how"], "class")

    def test_subclass_of_model(self):
        m = self.how(
            """
            class Model:
                pass
            class ModelNew(Model):
                pass
            """
        )
        self.assertEqual((m["how"], m["line"]), ("subclass", 4))

    def test_assignment(self):
        self.assertEqual(
            self.how("class Model: pass\nModelNew = Model\n"),
            {"defined": True, "how": "assignment", "line": 2},
        )
        self.assertEqual(self.how("ModelNew = make_model()\n")["how"], "assignment")

    def test_import(self):
        m = self.how("from kernels.fast import FastModel as ModelNew\n")
        self.assertEqual((m["how"], m["line"]), ("import", 1))

    def test_inside_if_and_try_at_module_level(self):
        m = self.how(
            """
            import torch
            if torch.cuda.is_available():
                class ModelNew(torch.nn.Module):
                    pass
            """
        )
        self.assertEqual((m["how"], m["line"]), ("class", 4))
        m = self.how(
            """
            try:
                from fast import Model as ModelNew
            except ImportError:
                class ModelNew: pass
            """
        )
        self.assertEqual((m["how"], m["line"]), ("import", 3))

    def test_other_forms(self):
        self.assertEqual(self.how("def ModelNew(*a):\n    return None\n")["how"], "other")
        self.assertEqual(self.how("globals()['ModelNew'] = object\n")["how"], "other")

    def test_missing_and_not_at_module_level(self):
        self.assertFalse(self.how("class Model: pass\n")["defined"])
        m = self.how(
            """
            def build():
                class ModelNew: pass
                return ModelNew
            """
        )
        self.assertFalse(m["defined"])
        # Text that merely mentions it does not count: Python is read as Python.
        self.assertFalse(self.how("# class ModelNew(nn.Module)\nx = 'class ModelNew'\n")["defined"])


class SyntaxErrorTest(unittest.TestCase):
    def test_error_names_file_and_line(self):
        r = scan("import torch\n\nclass ModelNew(:\n    pass\n", path="/x/bad.py")
        self.assertFalse(r["ok"])
        self.assertTrue(r["error"].startswith("/x/bad.py:3: SyntaxError: "), r["error"])
        self.assertEqual(r["extensions"], [])

    def test_kernels_still_read_from_a_broken_file(self):
        r = scan('src = """__global__ void k(float* x) {}"""\nclass (:\n')
        self.assertFalse(r["ok"])
        self.assertEqual(r["kernels"], ["k"])

    def test_null_byte_and_deep_nesting_are_errors_not_crashes(self):
        self.assertFalse(hone_pyscan.scan("x = 1\0\n", "n.py")["ok"])
        deep = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
        self.assertFalse(hone_pyscan.scan(deep, "d.py")["ok"])


class ExtensionCallsTest(unittest.TestCase):
    def test_module_level_call_resolved_with_key(self):
        r = scan(
            """
            from torch.utils.cpp_extension import load_inline
            mod = load_inline(name="ext", cpp_sources="int f();", functions="f")
            """
        )
        e = only_extension(r)
        self.assertEqual(
            (e["call"], e["line"], e["scope"], e["in_try"]), ("load_inline", 3, "module", False)
        )
        self.assertTrue(e["resolved"], e["unresolved_reason"])
        self.assertEqual(e["args"]["cpp_sources"], ["int f();"])
        self.assertEqual(e["args"]["functions"], ["f"])
        self.assertEqual(
            e["key"],
            hone_extbuild.extension_key(
                "load_inline", {"name": "ext", "cpp_sources": "int f();", "functions": "f"}
            ),
        )
        self.assertTrue(r["builds_extension"])

    def test_lazy_build_in_forward(self):
        r = scan(
            """
            import torch
            from torch.utils.cpp_extension import load_inline
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    ext = load_inline(name="lazy", cpp_sources="")
                    return x
            """
        )
        e = only_extension(r)
        self.assertEqual(e["scope"], "ModelNew.forward")
        self.assertTrue(e["resolved"])

    def test_nested_function_scope_is_a_qualname(self):
        e = only_extension(
            scan(
                """
            from torch.utils.cpp_extension import load_inline
            def outer():
                def inner():
                    return load_inline(name="n", cpp_sources="")
                return inner()
            """
            )
        )
        self.assertEqual(e["scope"], "outer.<locals>.inner")

    def test_try_except_around_the_call(self):
        r = scan(
            """
            from torch.utils.cpp_extension import load_inline
            try:
                ext = load_inline(name="a", cpp_sources="")
            except Exception:
                ext = load_inline(name="b", cpp_sources="")
            """
        )
        in_try = {e["args"]["name"]: e["in_try"] for e in r["extensions"]}
        self.assertEqual(in_try, {"a": True, "b": False})

    def test_aliases_and_module_paths(self):
        r = scan(
            """
            import torch
            import torch.utils.cpp_extension as ce
            from torch.utils import cpp_extension as cx
            from torch.utils.cpp_extension import load_inline as li, load as ld
            a = li(name="a", cpp_sources="")
            b = ce.load_inline(name="b", cpp_sources="")
            c = cx.load(name="c", sources=["/k/c.cpp"])
            d = torch.utils.cpp_extension.load_inline(name="d", cpp_sources="")
            e = ld("e", "/k/e.cpp")
            f = torch.load("weights.pt")
            build = li
            g = build(name="g", cpp_sources="")
            """
        )
        calls = [(e["call"], e["args"].get("name")) for e in r["extensions"]]
        self.assertEqual(
            calls,
            [
                ("load_inline", "a"),
                ("load_inline", "b"),
                ("load", "c"),
                ("load_inline", "d"),
                ("load", "e"),
                ("load_inline", "g"),
            ],
        )
        e = [x for x in r["extensions"] if x["args"]["name"] == "e"][0]
        self.assertEqual(e["args"]["sources"], ["/k/e.cpp"])

    def test_kernels_of_the_files_a_load_call_builds_are_its_own(self):
        # A FlashInfer-Trace cuda solution, or a ModelNew beside its .cu
        # files: the kernels are in the files, not in the Python text.
        with tempfile.TemporaryDirectory() as d:
            cu = os.path.join(d, "act.cu")
            with open(cu, "w") as f:
                f.write(
                    "__global__ void __launch_bounds__(256) act_kernel(const float* x) {}\n"
                    "template <int N> __global__ void tiled(float* y) {}\n"
                )
            r = scan(
                f"""
                from torch.utils.cpp_extension import load
                src = '__global__ void inline_one(float* p) {{}}'
                ext = load(name="act", sources=[{cu!r}, {os.path.join(d, "missing.cu")!r},
                                                "/dev/zero"])
                """
            )
        self.assertEqual(r["kernels"], ["inline_one", "act_kernel", "tiled"])

    def test_relative_paths_are_built_where_they_run(self):
        r = scan(
            """
            from torch.utils.cpp_extension import load, load_inline
            a = load(name="a", sources=["kernels/a.cu"])
            b = load_inline(name="b", cpp_sources="", extra_include_paths=["include"])
            """
        )
        reasons = [e["unresolved_reason"] for e in r["extensions"]]
        self.assertEqual(
            reasons,
            [
                "sources: 'kernels/a.cu' is a relative path (it depends on the working folder)",
                "extra_include_paths: 'include' is a relative path (it depends on the working "
                "folder)",
            ],
        )

    def test_json_load_is_not_an_extension(self):
        r = scan("import json\nfrom json import load\ncfg = load(open('x'))\nj = json.load(1)\n")
        self.assertEqual(r["extensions"], [])
        self.assertFalse(r["builds_extension"])

    def test_reference_without_a_call_still_builds(self):
        r = scan("from torch.utils.cpp_extension import load_inline\nbuilders = [load_inline]\n")
        self.assertEqual(r["extensions"], [])
        self.assertTrue(r["builds_extension"])


class ResolutionTest(unittest.TestCase):
    def args(self, text):
        e = only_extension(scan(text))
        self.assertTrue(e["resolved"], e["unresolved_reason"])
        return e["args"]

    def test_fstring_join_concatenation_and_module_constants(self):
        a = self.args(
            """
            from torch.utils.cpp_extension import load_inline
            BLOCK = 128
            NAME = "fused"
            HEADER = "#include <cuda_runtime.h>\\n"
            body = f"constexpr int B = {BLOCK * 2};\\nconstexpr float S = {1.5:.3f};"
            parts = [HEADER, body]
            src = "\\n".join(parts) + "\\n// end"
            flags = ["-O3"] + ["-DBLOCK=%d" % BLOCK]
            mod = load_inline(name=NAME + "_ext", cpp_sources="", cuda_sources=src,
                              extra_cuda_cflags=flags, extra_cflags=("-O2",))
            """
        )
        self.assertEqual(a["name"], "fused_ext")
        self.assertEqual(
            a["cuda_sources"],
            [
                "#include <cuda_runtime.h>\n\nconstexpr int B = 256;\nconstexpr float S = 1.500;"
                "\n// end"
            ],
        )
        self.assertEqual(a["extra_cuda_cflags"], ["-O3", "-DBLOCK=128"])
        self.assertEqual(a["extra_cflags"], ["-O2"])

    def test_dedent_strip_format_and_dict_functions(self):
        a = self.args(
            '''
            import textwrap
            from textwrap import dedent
            from torch.utils.cpp_extension import load_inline
            T = "float"
            cpp = textwrap.dedent("""
                torch::Tensor f(torch::Tensor x);
            """).strip()
            cu = dedent("""
                __global__ void k({t}* x) {{}}
            """).format(t=T)
            mod = load_inline("ext", cpp, cu, functions={"f": "doc"})
            '''
        )
        self.assertEqual(a["cpp_sources"], ["torch::Tensor f(torch::Tensor x);"])
        self.assertEqual(a["cuda_sources"], ["\n__global__ void k(float* x) {}\n"])
        self.assertEqual(a["functions"], {"f": "doc"})

    def test_function_locals_before_the_call(self):
        a = self.args(
            """
            from torch.utils.cpp_extension import load_inline
            PREFIX = "k"
            class ModelNew:
                def __init__(self):
                    src = "int " + PREFIX + "();"
                    self.ext = load_inline(name="m", cpp_sources=[src])
            """
        )
        self.assertEqual(a["cpp_sources"], ["int k();"])

    def test_kwargs_dict(self):
        a = self.args(
            """
            from torch.utils.cpp_extension import load_inline
            OPTS = dict_ = {"name": "kw", "cpp_sources": "x"}
            mod = load_inline(**{"name": "kw", "cpp_sources": "x"}, verbose=True)
            """
        )
        self.assertEqual((a["name"], a["cpp_sources"]), ("kw", ["x"]))
        self.assertNotIn("verbose", a)

    def unresolved(self, text):
        e = only_extension(scan(text))
        self.assertFalse(e["resolved"])
        self.assertNotIn("key", e)
        return e["unresolved_reason"]

    def test_value_read_from_a_file(self):
        reason = self.unresolved(
            """
            from torch.utils.cpp_extension import load_inline
            src = open("kernel.cu").read()
            mod = load_inline(name="f", cpp_sources="", cuda_sources=src)
            """
        )
        self.assertIn("cuda_sources", reason)
        self.assertIn("open(...).read(...)", reason)

    def test_name_bound_twice_or_as_a_parameter(self):
        reason = self.unresolved(
            """
            from torch.utils.cpp_extension import load_inline
            src = "a"
            src = "b"
            mod = load_inline(name="f", cpp_sources=src)
            """
        )
        self.assertIn("cpp_sources: 'src' is bound 2 times at module level", reason)
        reason = self.unresolved(
            """
            from torch.utils.cpp_extension import load_inline
            def build(src):
                return load_inline(name="f", cpp_sources=src)
            """
        )
        self.assertIn("'src' is a parameter in 'build'", reason)

    def test_global_rebinding_makes_a_module_name_unresolvable(self):
        reason = self.unresolved(
            """
            from torch.utils.cpp_extension import load_inline
            SRC = "a"
            def patch():
                global SRC
                SRC = "b"
            mod = load_inline(name="f", cpp_sources=SRC)
            """
        )
        self.assertIn("bound 2 times", reason)

    def test_local_bound_after_the_call(self):
        reason = self.unresolved(
            """
            from torch.utils.cpp_extension import load_inline
            def f():
                m = load_inline(name="f", cpp_sources=s)
                s = "x"
            """
        )
        self.assertIn("after it is used", reason)

    def test_positional_arguments_past_cuda_sources(self):
        reason = self.unresolved(
            """
            from torch.utils.cpp_extension import load_inline
            m = load_inline("f", "", "", ["fn"])
            """
        )
        self.assertIn("argument 4 of load_inline is positional", reason)

    def test_format_attribute_access_is_refused(self):
        reason = self.unresolved(
            """
            from torch.utils.cpp_extension import load_inline
            m = load_inline(name="f", cpp_sources="{0.__class__}".format("x"))
            """
        )
        self.assertIn("attribute", reason)

    def test_exponential_strings_are_capped(self):
        lines = ["from torch.utils.cpp_extension import load_inline", "a0 = 'xxxxxxxx'"]
        lines += ["a%d = a%d + a%d" % (i, i - 1, i - 1) for i in range(1, 40)]
        lines.append("m = load_inline(name='f', cpp_sources=a39)")
        start = time.monotonic()
        e = only_extension(hone_pyscan.scan("\n".join(lines) + "\n", "big.py"))
        self.assertLess(time.monotonic() - start, 5)
        self.assertFalse(e["resolved"])
        self.assertIn("too large", e["unresolved_reason"])


class KernelsTest(unittest.TestCase):
    def test_global_names_in_strings_skip_launch_bounds(self):
        r = scan(
            '''
            src = """
            __global__ void add_kernel(const float* a, float* b) {}
            template <int N>
            __global__ __launch_bounds__(256, 2) void tiled_kernel(float* x) {}
            extern "C" __global__ void
                plain(float* x) {}
            __global__ void add_kernel(const float* a, float* b);
            """
            '''
        )
        self.assertEqual(r["kernels"], ["add_kernel", "tiled_kernel", "plain"])

    def test_triton_kernels(self):
        r = scan(
            """
            import triton
            import triton.language as tl
            from triton import jit
            from numba import jit as njit

            @triton.autotune(configs=[], key=["n"])
            @triton.jit
            def softmax_kernel(x_ptr, n: tl.constexpr):
                pass

            @jit
            def other_kernel(x):
                pass

            @triton.jit(do_not_specialize=["n"])
            def third(x, n):
                pass

            @njit
            def not_triton(x):
                return x
            """
        )
        self.assertEqual(r["triton_kernels"], ["softmax_kernel", "other_kernel", "third"])
        self.assertTrue(r["builds_extension"])
        self.assertEqual(r["extensions"], [])

    def test_plain_pytorch_builds_nothing(self):
        r = scan(
            """
            import torch
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    return torch.relu(x)
            """
        )
        self.assertFalse(r["builds_extension"])
        self.assertEqual((r["kernels"], r["triton_kernels"]), ([], []))


class UsesTest(unittest.TestCase):
    def test_hints(self):
        r = scan(
            '''
            import torch
            import cupy
            s = torch.cuda.Stream()
            g = torch.cuda.CUDAGraph()
            src = """#include <cublas_v2.h>
            cudaStream_t t; cudaStreamCreate(&t);"""
            '''
        )
        self.assertTrue(r["uses"]["side_streams"])
        self.assertTrue(r["uses"]["cuda_graphs"])
        self.assertEqual(r["uses"]["external_libraries"], ["cublas", "cupy"])

    def test_none(self):
        r = scan("import torch, os, math\nx = torch.relu\n")
        self.assertEqual(
            r["uses"], {"side_streams": False, "cuda_graphs": False, "external_libraries": []}
        )


class CommandLineTest(unittest.TestCase):
    def test_one_json_line_and_exit_codes(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "c.py")
            with open(path, "w") as f:
                f.write(
                    "from torch.utils.cpp_extension import load_inline\n"
                    "m = load_inline(name='x', cpp_sources='')\nclass ModelNew: pass\n"
                )
            p = subprocess.run(
                [sys.executable, SCANNER, path], capture_output=True, text=True, timeout=60
            )
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(len(p.stdout.strip().splitlines()), 1)
            reply = json.loads(p.stdout)
            self.assertTrue(reply["model_new"]["defined"])
            self.assertEqual(reply["extensions"][0]["args"]["name"], "x")
            # No torch: the scanner never imports it.
            self.assertNotIn("torch", p.stderr)
            with open(path, "w") as f:
                f.write("def broken(:\n")
            p = subprocess.run(
                [sys.executable, SCANNER, path], capture_output=True, text=True, timeout=60
            )
            self.assertEqual(p.returncode, 0)
            self.assertFalse(json.loads(p.stdout)["ok"])
        p = subprocess.run([sys.executable, SCANNER], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        p = subprocess.run(
            [sys.executable, SCANNER, "/nonexistent/x.py"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        self.assertEqual(p.returncode, 2)

    def test_does_not_import_torch(self):
        code = (
            "import sys; sys.path.insert(0, %r); import hone_pyscan; "
            "hone_pyscan.scan('import torch\\n', 'x.py'); "
            "print('torch' in sys.modules)" % PYTHON_DIR
        )
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.stdout.strip(), "False", p.stderr)


if __name__ == "__main__":
    unittest.main()
