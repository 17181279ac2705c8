"""Tests for where python/hone_oracle.py draws a problem's inputs: on the
device under a default device, else on the CPU. A stand-in for torch (a
global of the oracle and of each part of it that uses it, set in main())
lets them run anywhere.

Run: python3 -m unittest discover -s python/tests -p 'test_oracle_draw.py'
"""

import os
import sys
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import hone_oracle  # noqa: E402
from fake_torch import FakeOutOfMemory, FakeTorch  # noqa: E402


class DrawTest(unittest.TestCase):
    def setUp(self):
        self.modules = (hone_oracle,) + hone_oracle.TORCH_MODULES
        self.saved = [m.torch for m in self.modules]
        for m in self.modules:
            m.torch = FakeTorch
        self.problem = types.SimpleNamespace(device="cuda:0", draw_on_device=True)
        self.places = []

    def tearDown(self):
        for m, saved in zip(self.modules, self.saved):
            m.torch = saved

    def draw(self, error):
        def make():
            self.places.append("device" if FakeTorch.on_device else "cpu")
            if FakeTorch.on_device and error is not None:
                raise error
            return ["x"]

        return hone_oracle.Problem._draw(self.problem, make, 1)

    def test_drawn_on_the_device(self):
        self.assertEqual(self.draw(None), ["x"])
        self.assertEqual(self.places, ["device"])

    def test_a_get_inputs_that_cannot_run_on_the_device_goes_to_the_cpu_for_good(self):
        self.assertEqual(self.draw(TypeError("numpy cannot")), ["x"])
        self.assertEqual(self.places, ["device", "cpu"])
        self.assertFalse(self.problem.draw_on_device)

    def test_out_of_device_memory_goes_to_the_cpu_this_time_only(self):
        self.assertEqual(self.draw(FakeOutOfMemory("CUDA out of memory")), ["x"])
        self.assertEqual(self.places, ["device", "cpu"])
        self.assertTrue(self.problem.draw_on_device, "the next draw tries the device again")


if __name__ == "__main__":
    unittest.main()
