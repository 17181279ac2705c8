"""Tests for python/hone_pylint.py, hone's static rules for ModelNew files,
through the scan that reports them (hone_pyscan.scan) and on the Triton
catalogue hone writes (tests/triton/catalogue/).

Run: python3 -m unittest discover -s python/tests -p 'test_pylint.py'

Standard library only, like the scanner.
"""

import os
import sys
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
SOURCE_DIR = os.path.dirname(PYTHON_DIR)
sys.path.insert(0, PYTHON_DIR)

import hone_pyscan  # noqa: E402


def findings(text, decorators=()):
    r = hone_pyscan.scan(textwrap.dedent(text), "cand.py", decorators)
    assert r["ok"], r["error"]
    return [(f["rule"], f["line"], f["token"]) for f in r["findings"]]


def rules(text):
    return [f[0] for f in findings(text)]


TRITON_HEAD = """
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + o, tl.load(x_ptr + o, mask=o < n), mask=o < n)
"""


class TimingPatchTest(unittest.TestCase):
    def test_replacing_an_event_method_or_a_clock(self):
        for line, token in [
            ("torch.cuda.Event.elapsed_time = lambda s, e: 0.0", "torch.cuda.Event.elapsed_time"),
            ("time.perf_counter = lambda: 0", "time.perf_counter"),
            ("torch.cuda.synchronize = lambda *a: None", "torch.cuda.synchronize"),
            ("triton.testing.do_bench = lambda f, **k: 0.001", "triton.testing.do_bench"),
            ("torch.allclose = lambda *a, **k: True", "torch.allclose"),
        ]:
            got = findings("import time, torch, triton\n" + line + "\n")
            self.assertIn(("timing", 2, token), got, line)

    def test_through_an_alias_and_setattr(self):
        got = findings(
            """
            import torch.cuda as tc
            tc.Event.record = None
            setattr(tc, "synchronize", None)
            """
        )
        self.assertEqual([f[0] for f in got], ["timing", "timing"])
        self.assertEqual(got[1][2], "setattr(torch.cuda, 'synchronize')")

    def test_settings_are_not_patches(self):
        self.assertEqual(
            rules(
                """
            import torch
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.benchmark = True
            """
            ),
            [],
        )


class ThreadsProcessesNetworkTest(unittest.TestCase):
    def test_each_is_its_rule(self):
        self.assertEqual(
            rules(
                """
            import threading, subprocess, socket
            from concurrent.futures import ThreadPoolExecutor
            threading.Thread(target=print).start()
            ThreadPoolExecutor(2)
            subprocess.run(["ls"])
            socket.socket()
            """
            ),
            ["host-thread", "host-thread", "process", "network"],
        )


class LazyTensorTest(unittest.TestCase):
    def test_a_tensor_subclass(self):
        self.assertEqual(
            rules(
                """
            import torch
            class Lazy(torch.Tensor):
                pass
            """
            ),
            ["lazy-tensor"],
        )
        self.assertEqual(
            rules("import torch\nt = torch.Tensor._make_subclass(object, None)\n"), ["lazy-tensor"]
        )


class FallbackTest(unittest.TestCase):
    def test_a_handler_that_computes_with_torch(self):
        got = findings(
            TRITON_HEAD
            + """
class ModelNew(nn.Module):
    def forward(self, x):
        try:
            y = torch.empty_like(x)
            k[(1,)](x, y, x.numel(), BLOCK=1024)
            return y
        except Exception as e:
            print(e)
            return torch.relu(x)
"""
        )
        self.assertEqual([f[0] for f in got], ["fallback"])
        self.assertEqual(got[0][2], "try ... except: torch.relu")

    def test_a_handler_that_raises_is_no_fallback(self):
        self.assertEqual(
            rules(
                TRITON_HEAD
                + """
class ModelNew(nn.Module):
    def forward(self, x):
        try:
            y = torch.empty_like(x)
            k[(1,)](x, y, x.numel(), BLOCK=1024)
        except RuntimeError as e:
            raise ValueError("launch failed") from e
        return y
"""
            ),
            [],
        )

    def test_an_extension_built_in_a_try_block(self):
        got = findings(
            """
            from torch.utils.cpp_extension import load_inline
            try:
                ext = load_inline(name="e", cpp_sources="", functions=["f"])
            except Exception:
                ext = None
            """
        )
        self.assertEqual([f[0] for f in got], ["fallback"])


class TorchComputeTest(unittest.TestCase):
    def test_operators_in_forward_and_the_functions_it_calls(self):
        got = findings(
            TRITON_HEAD
            + """
import torch.nn.functional as F

def helper(x):
    return F.softmax(x, dim=1)

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = torch.empty_like(x)
        k[(1,)](x, y, x.numel(), BLOCK=1024)
        z = torch.matmul(y, y)
        return helper(self.fc(z)) + x.sum()
"""
        )
        self.assertEqual(
            [(f[0], f[2]) for f in got],
            [
                ("torch-compute", "torch.nn.functional.softmax"),
                ("torch-compute", "torch.matmul"),
                ("torch-compute", "self.fc (torch.nn.Linear)"),
            ],
        )

    def test_allocation_shapes_and_views_are_not_compute(self):
        self.assertEqual(
            rules(
                TRITON_HEAD
                + """
class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous().view(-1)
        y = torch.empty_like(x)
        z = torch.zeros(x.shape[0], device=x.device, dtype=torch.float32)
        k[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y.reshape(4, -1)
"""
            ),
            [],
        )

    def test_triton_kernels_bodies_are_not_torch(self):
        # tl.sum inside the kernel, and a kernel called from forward by name.
        self.assertEqual(
            rules(
                """
import torch, triton
import triton.language as tl

@triton.jit
def s(x_ptr, out_ptr):
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, 16)), axis=0))

class ModelNew(torch.nn.Module):
    def forward(self, x):
        out = torch.empty(1, device=x.device)
        s[(1,)](x, out)
        return out
"""
            ),
            [],
        )


class DslKernelsTest(unittest.TestCase):
    def test_kernels_of_the_decorators_asked_for(self):
        r = hone_pyscan.scan(
            textwrap.dedent(
                """
            import tinydsl as td
            from tinydsl import kernel

            @td.kernel
            def a(x): pass

            @kernel(block=4)
            def b(x): pass

            @other.kernel
            def c(x): pass
            """
            ),
            "cand.py",
            ["tinydsl.kernel"],
        )
        self.assertEqual([k["name"] for k in r["dsl_kernels"]], ["a", "b"])
        self.assertTrue(r["builds_extension"])


class CatalogueTest(unittest.TestCase):
    """tests/triton/catalogue: each file's findings are what its header says."""

    def findings_of(self, name):
        with open(os.path.join(SOURCE_DIR, "tests", "triton", "catalogue", name)) as f:
            r = hone_pyscan.scan(f.read(), name, ["triton.jit"])
        self.assertTrue(r["ok"], r["error"])
        self.assertEqual(r["language"], "triton", name)
        return [f["rule"] for f in r["findings"]]

    def test_honest_files_are_clean(self):
        for name in (
            "relu.py",
            "softmax.py",
            "rmsnorm.py",
            "gelu_autotune.py",
            "matmul_ieee.py",
            "matmul_tf32.py",
            "leaky_relu.py",
            "side_stream.py",
            "cache_output.py",
            "overrun.py",
            "compile_error.py",
        ):
            self.assertEqual(self.findings_of(name), [], name)

    def test_hostile_files_are_seen(self):
        self.assertEqual(self.findings_of("timer_patch.py"), ["timing"])
        self.assertEqual(self.findings_of("fallback.py"), ["fallback"])
        self.assertEqual(self.findings_of("torch_compute.py"), ["torch-compute"])
        self.assertEqual(self.findings_of("decoy.py"), ["torch-compute"])


if __name__ == "__main__":
    unittest.main()
