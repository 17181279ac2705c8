"""Tests for python/hone_compat.py's pieces that need no sandbox: how the
warm-up draws its inputs and where models are built. A stand-in for torch
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
        for error in (FakeOutOfMemory("CUDA out of memory. Tried to allocate 32.00 GiB"),
                      RuntimeError("CUDA error: out of memory")):
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


if __name__ == "__main__":
    unittest.main()
