"""Tests for python/hone_oracle_estimate.py through the oracle's protocol: a
problem loaded with "estimate" is built under FakeTensorMode, so its shapes
and memory come back without its tensors being made.

Run: python3 -m unittest discover -s python/tests -p 'test_oracle_estimate.py'
"""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_oracle import NO_TORCH, PYTHON, Oracle, prob  # noqa: E402

F32 = 4
# Problems only these tests load: too big for any machine of the tests',
# or loaded only as estimates; kept out of problems/, whose every file
# some tests load for real.
TOO_BIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "too_big")


@unittest.skipIf(PYTHON is None, NO_TORCH)
class EstimateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.oracle = Oracle()

    @classmethod
    def tearDownClass(cls):
        cls.oracle.close()

    def estimate(self, name, folder=None):
        path = os.path.join(folder, name + ".py") if folder else prob(name)
        r = self.oracle.request(op="load", path=path, estimate=True)
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["status"], "loaded", r)
        self.assertTrue(r["estimated"])
        return r

    def test_a_problem_larger_than_this_machine_is_estimated_in_seconds(self):
        start = time.monotonic()
        r = self.estimate("huge_relu", TOO_BIG)
        self.assertLess(time.monotonic() - start, 30)
        n = 65536 * 262144
        self.assertEqual(r["inputs"][0]["shape"], [65536, 262144])
        self.assertEqual(r["outputs"][0]["shape"], [65536, 262144])
        self.assertEqual(r["memory"]["forward_peak_bytes"], n * F32)  # relu's output
        self.assertGreaterEqual(r["memory"]["draw_peak_bytes"], n * F32)
        self.assertEqual(r["memory"]["model_bytes"], 0)

    def test_a_view_keeps_its_temporary_alive(self):
        r = self.estimate("view_of_temporary")
        whole, row = 1024 * 1024 * F32, 1024 * F32
        # x * 2 lives on through its view while x * 3 is made, then the sum's row.
        self.assertEqual(r["memory"]["forward_peak_bytes"], 2 * whole + row)

    def test_a_temporary_is_freed_when_its_last_tensor_goes(self):
        r = self.estimate("temporaries_freed")
        self.assertEqual(r["memory"]["forward_peak_bytes"], 2 * 1024 * 1024 * F32)

    def test_a_fused_operator_counts_its_output_not_its_decomposition(self):
        # torch 2's fake mode runs softmax's decomposition (exp, sum, divide);
        # the device's kernel makes the output alone.
        r = self.estimate("softmax")
        self.assertEqual(r["memory"]["forward_peak_bytes"], 16 * 16384 * F32)

    def test_an_estimate_matches_a_real_loads_contract(self):
        real = self.oracle.request(op="load", path=prob("linear_gelu_scale"))
        self.assertTrue(real["ok"], real)
        est = self.estimate("linear_gelu_scale")
        for key in ("inputs", "outputs", "sizes"):
            self.assertEqual(est[key], real[key], key)
        params = sum(F32 * _numel(t["shape"]) for t in real["inputs"] if t["role"] == "param")
        self.assertGreater(params, 0)
        self.assertEqual(est["memory"]["model_bytes"], params)

    def test_every_distribution_is_drawn_without_reading_a_value(self):
        # relu's get_inputs() is torch.rand: the signed set is drawn (its
        # copy counted) and the scaled set's factor is not read from a tensor.
        r = self.estimate("relu")
        self.assertIn("scaled", [d["name"] for d in r["distributions"]])
        self.assertGreater(r["memory"]["draw_peak_bytes"], 0)

    def refused(self, name):
        """The error of estimating too_big/NAME.py, which must fail."""
        r = self.oracle.request(op="load", path=os.path.join(TOO_BIG, name + ".py"), estimate=True)
        self.assertFalse(r["ok"], r)
        return r["error"]

    def test_a_forward_that_reads_a_value_is_not_estimated_and_says_why(self):
        error = self.refused("reads_a_value")
        self.assertIn("reads a tensor's value", error)
        self.assertIn("reads_a_value.py", error)

    def test_a_forward_that_lists_values_is_not_estimated_and_says_why(self):
        error = self.refused("lists_a_value")
        self.assertIn("reads a tensor's value", error)
        self.assertIn("lists_a_value.py:14", error)

    def test_a_model_built_for_real_past_the_host_memory_left_is_refused_in_words(self):
        error = self.refused("huge_after_a_value")
        self.assertIn("builds the Model for real on this machine's CPU", error)
        self.assertIn("GB of host memory", error)
        # The oracle lives on, its address space given back: the next load works.
        self.estimate("relu")

    def test_a_constants_value_is_known_to_an_estimate(self):
        r = self.estimate("constant_value", TOO_BIG)
        self.assertEqual(r["memory"]["forward_peak_bytes"], 64 * 64 * F32)

    def test_a_model_whose_init_reads_a_value_is_built_for_real_and_estimated(self):
        r = self.estimate("value_in_init", TOO_BIG)
        weights = 4 * (256 * 256 + 256) * F32
        self.assertEqual(r["memory"]["model_bytes"], weights)
        self.assertEqual(r["outputs"][0]["shape"], [128, 256])
        self.assertGreaterEqual(r["memory"]["forward_peak_bytes"], 128 * 256 * F32)

    def test_tensors_an_init_keeps_in_lists_and_dicts_are_taken_in_as_fakes(self):
        # Its __init__ calls .tolist(), so it is built for real; a real tensor
        # left in its list or dict would meet the fake forward (an error
        # under torch 1.13) and hold host memory the estimate never counts.
        r = self.estimate("tensors_in_init", TOO_BIG)
        self.assertEqual(r["memory"]["model_bytes"], 3 * (256 * 256 + 256) * F32)
        self.assertEqual(r["outputs"][0]["shape"], [128, 256])

    def test_an_estimate_is_not_kept_to_generate_from(self):
        r = self.estimate("relu")
        g = self.oracle.request(op="generate", problem=r["problem"], seed=0, out_dir="/tmp")
        self.assertFalse(g["ok"])
        self.assertIn("unknown problem", g["error"])


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


if __name__ == "__main__":
    unittest.main()
