"""Tests for the oracle's FLOP counts kept between processes (--cache-dir,
hone_oracle_problem.Problem._count_flops): a second process loading the
same problem reads the count instead of counting again.

Run: python3 -m unittest discover -s python/tests -p 'test_oracle_flops_cache.py'
"""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_oracle import NO_TORCH, PYTHON, Oracle, prob  # noqa: E402


TOO_BIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "too_big")


def _has_flop_counter():
    """Whether the oracle's torch (HONE_PYTHON's, not this runner's) counts."""
    if PYTHON is None:
        return False
    done = subprocess.run(
        [PYTHON, "-c", "import torch.utils.flop_counter"], capture_output=True, check=False
    )
    return done.returncode == 0


def _flops(cache, name, scale=1.0, path=None):
    oracle = Oracle("--cache-dir", cache)
    try:
        r = oracle.request(op="load", path=path or prob(name), shape_scale=scale)
        assert r["ok"], r
        return r["cost"]["flops"]
    finally:
        oracle.close()


@unittest.skipIf(PYTHON is None, NO_TORCH)
class FlopsCacheTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.cache = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def files(self):
        return sorted(glob.glob(os.path.join(self.cache, "flops-*.json")))

    def test_a_count_is_kept_and_read_by_the_next_process(self):
        counted = _flops(self.cache, "linear_gelu_scale")
        [kept] = self.files()
        with open(kept) as f:
            self.assertEqual(json.load(f)["flops"], counted)  # None where torch has no counter
        # What the next process reports is what the file says, not a new count.
        with open(kept, "w") as f:
            json.dump({"flops": 12345}, f)
        self.assertEqual(_flops(self.cache, "linear_gelu_scale"), 12345)

    def test_another_problem_or_scale_is_counted_on_its_own(self):
        _flops(self.cache, "linear_gelu_scale")
        _flops(self.cache, "linear_gelu_scale", scale=0.5)
        _flops(self.cache, "relu")
        self.assertEqual(len(self.files()), 3)

    @unittest.skipUnless(
        PYTHON and _has_flop_counter(), "this torch has no FLOP counter (torch 2.1 on)"
    )
    def test_a_count_that_failed_is_not_kept(self):
        path = os.path.join(TOO_BIG, "flop_count_fails.py")
        self.assertIsNone(_flops(self.cache, None, path=path))
        self.assertEqual(self.files(), [])

    def test_an_unreadable_count_is_counted_again(self):
        counted = _flops(self.cache, "linear_gelu_scale")
        [kept] = self.files()
        with open(kept, "w") as f:
            f.write("{not json")
        self.assertEqual(_flops(self.cache, "linear_gelu_scale"), counted)
        with open(kept) as f:
            self.assertEqual(json.load(f)["flops"], counted)

    def test_a_kept_file_that_is_not_a_count_is_counted_again(self):
        counted = _flops(self.cache, "linear_gelu_scale")
        [kept] = self.files()
        for text in ("[1, 2]", '{"flops": "many"}', '{"flops": true}', '{"flops": -3}', "7"):
            with open(kept, "w") as f:
                f.write(text)
            self.assertEqual(_flops(self.cache, "linear_gelu_scale"), counted, text)
        # Nothing but the count itself is left in the folder (no temporary file).
        self.assertEqual(os.listdir(self.cache), [os.path.basename(kept)])


if __name__ == "__main__":
    unittest.main()
