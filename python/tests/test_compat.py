"""Tests for python/hone_compat.py's and python/hone_compat_call.py's pieces
that need no sandbox: how the warm-up draws its inputs, where models are
built, and the drawn scalars of a call. A stand-in for torch
(fake_torch.py, passed in as the runner passes the real one) lets them run
anywhere, torch or not.

Run: python3 -m unittest discover -s python/tests -p 'test_compat.py'
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import hone_compat  # noqa: E402
import hone_compat_call  # noqa: E402
from fake_torch import FakeOutOfMemory, FakeTorch  # noqa: E402


class Problem:
    """get_inputs() that fails with `error` under the device context only."""

    def __init__(self, error):
        self.error = error
        self.calls = []

    def get_inputs(self):
        self.calls.append("device" if FakeTorch.on_device else "cpu")
        if FakeTorch.on_device and self.error is not None:
            raise self.error
        return [1, 2]


class DrawInputsTest(unittest.TestCase):
    def test_drawn_on_the_device(self):
        p = Problem(None)
        self.assertEqual(hone_compat._draw_inputs(FakeTorch, p, "cuda:0"), [1, 2])
        self.assertEqual(p.calls, ["device"])

    def test_a_get_inputs_that_cannot_run_on_the_device_is_drawn_on_the_cpu(self):
        p = Problem(TypeError("numpy cannot make a CUDA tensor"))
        self.assertEqual(hone_compat._draw_inputs(FakeTorch, p, "cuda:0"), [1, 2])
        self.assertEqual(p.calls, ["device", "cpu"])

    def test_out_of_device_memory_raises_without_drawing_on_the_cpu(self):
        for error in (
            FakeOutOfMemory("CUDA out of memory. Tried to allocate 32.00 GiB"),
            RuntimeError("CUDA error: out of memory"),
        ):
            p = Problem(error)
            with self.assertRaises(RuntimeError):
                hone_compat._draw_inputs(FakeTorch, p, "cuda:0")
            self.assertEqual(p.calls, ["device"], "a full-size draw on the CPU takes seconds a GB")

    def test_the_cpu_draws_directly(self):
        p = Problem(None)
        self.assertEqual(hone_compat._draw_inputs(FakeTorch, p, "cpu"), [1, 2])
        self.assertEqual(p.calls, ["cpu"])


class Built:
    """A model class that records where it was built, failing on the device
    with `error`."""

    error = None
    places = []

    def __init__(self, *init):
        Built.places.append("device" if FakeTorch.on_device else "cpu")
        if FakeTorch.on_device and Built.error is not None:
            raise Built.error


class ConstructTest(unittest.TestCase):
    def build(self, on_device, error=None, device="cuda:0"):
        Built.error, Built.places, FakeTorch.seeds = error, [], []
        hone_compat._construct(FakeTorch, Built, [], 7, device, on_device)
        return Built.places

    def test_a_baseline_is_built_on_the_device(self):
        self.assertEqual(self.build(True), ["device"])
        self.assertEqual(FakeTorch.seeds, [7])

    def test_a_candidate_is_built_on_the_cpu_as_kernelbench_builds_it(self):
        self.assertEqual(self.build(False), ["cpu"])

    def test_a_constructor_that_cannot_run_on_the_device_is_built_on_the_cpu_reseeded(self):
        self.assertEqual(self.build(True, TypeError("numpy() on a CUDA tensor")), ["device", "cpu"])
        self.assertEqual(FakeTorch.seeds, [7, 7])

    def test_out_of_device_memory_raises(self):
        with self.assertRaises(FakeOutOfMemory):
            self.build(True, FakeOutOfMemory("CUDA out of memory"))
        self.assertEqual(Built.places, ["device"])

    def test_on_the_cpu_device_nothing_changes(self):
        self.assertEqual(self.build(True, device="cpu"), ["cpu"])


class SourceStaysReadableTest(unittest.TestCase):
    """@triton.jit reads its function's source (inspect.getsourcelines) when
    the module runs; the sandbox cannot open the candidate's file, so the
    runner must hand the source to linecache itself. A stand-in decorator
    does what Triton's does."""

    SOURCE = (
        "import inspect\n"
        "def jit(fn):\n"
        "    lines, start = inspect.getsourcelines(fn)\n"
        "    fn.source, fn.start = ''.join(lines), start\n"
        "    return fn\n"
        "\n"
        "N = 4096\n"
        "\n"
        "@jit\n"
        "def kernel(x):\n"
        "    return x + 1\n"
    )

    def test_a_decorator_reads_the_source_of_a_file_it_cannot_open(self):
        path = "/nonexistent/hone-test/candidate.py"
        mod = hone_compat._exec_source(self.SOURCE, path, "hone_test_jit_module", {"N": 64})
        self.assertEqual(mod.kernel.start, 9)
        self.assertIn("def kernel(x):", mod.kernel.source)
        self.assertEqual(mod.N, 64, "module-level sizes are still scaled")
        import inspect

        self.assertEqual(inspect.getsource(mod.kernel).splitlines()[0], "@jit")

    def test_a_traceback_names_the_users_line(self):
        source = "def forward(x):\n    y = x + 1\n    return y / 0\n"
        path = "/nonexistent/hone-test/raise.py"
        mod = hone_compat._exec_source(source, path, "hone_test_raise_module", {})
        try:
            mod.forward(1)
        except ZeroDivisionError as e:
            d = hone_compat.describe_exception(e)
        self.assertEqual(d["type"], "ZeroDivisionError")
        self.assertEqual((d["file"], d["line"], d["function"]), (path, 3, "forward"))
        self.assertEqual(d["code"], "return y / 0")
        self.assertEqual(d["message"], "division by zero")


class FailureEventsTest(unittest.TestCase):
    def event(self, fn):
        import contextlib
        import io

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = fn()
        lines = [
            line for line in err.getvalue().splitlines() if line.startswith("hone-compat-event: ")
        ]
        self.assertEqual(len(lines), 1, err.getvalue())
        import json

        return rc, json.loads(lines[0][len("hone-compat-event: ") :])

    def test_a_refused_result_says_why(self):
        rc, e = self.event(lambda: hone_compat._call_failed("ModelNew returned 2 tensors"))
        self.assertEqual(rc, hone_compat.CALL_FAILED)
        self.assertEqual(e, {"event": "call_failed", "reason": "ModelNew returned 2 tensors"})

    def test_an_exception_carries_its_cause(self):
        try:
            try:
                raise ValueError("arange's range must be a power of 2")
            except ValueError as inner:
                raise RuntimeError("at 3:13: tl.arange(0, BLOCK)") from inner
        except RuntimeError as e:
            rc, ev = self.event(lambda: hone_compat._call_failed("raised", e))
        self.assertEqual(ev["reason"], "raised")
        self.assertEqual(ev["type"], "RuntimeError")
        self.assertIn("at 3:13", ev["message"])
        self.assertIn("ValueError: arange's range must be a power of 2", ev["message"])

    def test_output_with_curly_quotes_needs_no_ascii(self):
        # The sandbox runs Python in UTF-8 (PYTHONUTF8, PYTHONIOENCODING): a
        # compiler's ‘quotes’ print without a UnicodeEncodeError.
        import subprocess

        out = subprocess.run(
            [sys.executable, "-c", "print('error: \u2018x\u2019 was not declared')"],
            env={
                "LANG": "C",
                "LC_ALL": "C",
                "PYTHONUTF8": "1",
                "PYTHONIOENCODING": "utf-8",
                "PATH": os.environ.get("PATH", ""),
            },
            capture_output=True,
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("\u2018x\u2019".encode(), out.stdout)


class Scalar:
    """A one-element tensor over hone's buffer, counting its `.item()` reads
    (each a sync with the GPU in the real runner)."""

    def __init__(self, value):
        self.value, self.reads = value, 0

    def item(self):
        self.reads += 1
        return self.value


class DrawnScalarsTest(unittest.TestCase):
    def setUp(self):
        self.saved = dict(hone_compat_call.state)
        # forward(x, alpha: float drawn per value set, n: int constant 3)
        hone_compat_call.state.update(
            nf=3, python_types=["", "float", "int"], python_values=["", "", "3"], prepared=None
        )

    def tearDown(self):
        hone_compat_call.state.clear()
        hone_compat_call.state.update(self.saved)

    def test_only_the_drawn_scalars_are_read_before_the_call(self):
        self.assertEqual(hone_compat_call._drawn_scalars(), [1])

    def test_a_scalar_read_before_the_call_is_not_read_inside_it(self):
        alpha = Scalar(0.5)
        args = hone_compat_call._forward_args(["x", alpha, Scalar(9)], {1: 0.25})
        self.assertEqual(args, ["x", 0.25, 3])
        self.assertEqual(alpha.reads, 0, "a read inside the timed call waits for the flush")

    def test_without_a_read_before_the_call_the_call_reads_it(self):
        alpha = Scalar(0.5)
        self.assertEqual(hone_compat_call._forward_args(["x", alpha, Scalar(9)], {}), ["x", 0.5, 3])
        self.assertEqual(alpha.reads, 1)

    def test_before_call_reads_the_drawn_scalars_of_that_call(self):
        alpha = Scalar(0.75)

        class Args:
            inputs = ["x", alpha, "n"]

        saved_args, saved_view = hone_compat_call.HoneArgs, hone_compat_call._view
        hone_compat_call.HoneArgs = type("A", (), {"from_address": staticmethod(lambda a: Args)})
        hone_compat_call._view = lambda t: t
        try:
            self.assertEqual(hone_compat_call.before_call(1234), 0)
        finally:
            hone_compat_call.HoneArgs, hone_compat_call._view = saved_args, saved_view
        self.assertEqual(hone_compat_call.state["prepared"], (1234, {1: 0.75}))
        self.assertEqual(alpha.reads, 1)

    def test_before_call_that_fails_leaves_the_read_to_the_call(self):
        saved_args = hone_compat_call.HoneArgs
        hone_compat_call.HoneArgs = type("A", (), {"from_address": staticmethod(lambda a: 1 / 0)})
        try:
            self.assertEqual(hone_compat_call.before_call(1234), 0)
        finally:
            hone_compat_call.HoneArgs = saved_args
        self.assertIsNone(hone_compat_call.state["prepared"])


if __name__ == "__main__":
    unittest.main()
