"""Tests for how python/hone_oracle.py times the float64 reference it writes
into the worker's buffers: the worker checks float64 precision on fewer value
sets once one takes over a second (src/pytorch/oracle_reference.h), so the time
must include the device work the calls only queued.

Run: python3 -m unittest discover -s python/tests -p 'test_oracle_ref64.py'
"""

import os
import sys
import time
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import hone_oracle  # noqa: E402

QUEUED_SECONDS = 0.3


class QueuingSink:
    """DeviceTargets as a GPU behaves: writes return at once, and the work
    they queued finishes only when synchronize() waits for it."""

    def __init__(self):
        self.written = []

    def write(self, target, tensor, what):
        self.written.append(what)

    def synchronize(self):
        time.sleep(QUEUED_SECONDS)


class Ref64TimingTest(unittest.TestCase):
    def test_the_time_includes_the_queued_device_work(self):
        problem = types.SimpleNamespace(
            contract_inputs=[], arg_names=[], forward64=lambda args, seed, widened: ["y64"]
        )
        sink = QueuingSink()
        r = hone_oracle.Oracle._ref64_into(None, problem, 1, 0, sink, {"ref64": [{}]})
        self.assertTrue(r["available"], r)
        self.assertEqual(sink.written, ["float64 output 0"])
        self.assertGreaterEqual(r["seconds"], QUEUED_SECONDS)


if __name__ == "__main__":
    unittest.main()
