"""Tests for python/hone_flashinfer.py, the helpers hone copies into the
KernelBench-format files it writes for FlashInfer-Trace definitions and
solutions: inputs drawn as a workload says (random by dtype, scalars,
safetensors read without the package), results in output order, and the
shapes and dtypes a value-returning solution must return.

Run: python3 -m unittest discover -s python/tests -p 'test_flashinfer.py'
"""

import json
import os
import struct
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

try:
    import torch
    import hone_flashinfer as fi
except ImportError:  # pragma: no cover - the oracle's tests need torch too
    torch = None

DEFINITION = {
    "name": "d",
    "op_type": "x",
    "axes": [
        ["b", {"type": "var"}],
        ["h", {"type": "const", "value": 4}],
        ["h2", {"type": "expr", "expression": "2 * h"}],
    ],
    "inputs": [
        ["x", {"shape": ["b", "h2"], "dtype": "bfloat16"}],
        ["idx", {"shape": ["b"], "dtype": "int32"}],
        ["eps", {"shape": None, "dtype": "float32"}],
    ],
    "outputs": [
        ["y", {"shape": ["b", "h"], "dtype": "float32"}],
        ["n", {"shape": ["b"], "dtype": "int64"}],
    ],
}


def safetensors(path, key, values):
    raw = struct.pack("<%di" % len(values), *values)
    header = json.dumps(
        {key: {"dtype": "I32", "shape": [len(values)], "data_offsets": [0, len(raw)]}}
    ).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + raw)


@unittest.skipIf(torch is None, "no torch here")
class FlashInferHelpersTest(unittest.TestCase):
    def fi(self, inputs=None, axes=None, root="/"):
        return {
            "definition": DEFINITION,
            "root": root,
            "workload": {"uuid": "u", "axes": axes or {"b": 3}, "inputs": inputs or {}},
        }

    def test_random_inputs_follow_the_definition(self):
        torch.manual_seed(0)
        x, idx, eps = fi._hone_fi_inputs(self.fi())
        self.assertEqual(list(x.shape), [3, 8])  # h2 = 2 * h
        self.assertEqual(x.dtype, torch.bfloat16)
        self.assertEqual(idx.dtype, torch.int32)
        self.assertTrue(bool(((idx >= -1024) & (idx < 1024)).all()))
        self.assertIsInstance(eps, float)

    def test_expression_axes_in_python_as_sol_execbench_writes_them(self):
        self.assertEqual(
            fi._hone_fi_expr("attention_head_dim // 2", {"attention_head_dim": 128}), 64
        )
        self.assertEqual(fi._hone_fi_expr("max(h // 3, 1) ** 2 % 7 + min(h, 2, 9)", {"h": 7}), 6)
        with self.assertRaises(ValueError):
            fi._hone_fi_expr("h / 2", {"h": 7})

    def test_expression_axes_call_what_hones_checker_accepts(self):
        # src/core/expr.h's functions: a definition it accepts runs here too.
        self.assertEqual(fi._hone_fi_expr("ceildiv(h, 4)", {"h": 9}), 3)
        self.assertEqual(fi._hone_fi_expr("ceil(h / 2) + floor(h / 4)", {"h": 7}), 5)
        self.assertEqual(fi._hone_fi_expr("sqrt(h)", {"h": 16}), 4)
        with self.assertRaises(ValueError):
            fi._hone_fi_expr("sqrt(h)", {"h": 8})

    def test_custom_inputs_come_from_the_definitions_entrypoint(self):
        seen = {}

        def generate(axes_and_scalars, device):
            seen.update(axes_and_scalars)
            n = axes_and_scalars["b"]
            return {
                "x": torch.ones(n, 8, dtype=torch.bfloat16, device=device),
                "idx": torch.arange(n, dtype=torch.int32, device=device),
            }

        fi.generate = generate  # the reference's functions live beside the helpers
        try:
            d = dict(DEFINITION, custom_inputs_entrypoint="generate")
            f = {
                "definition": d,
                "root": "/",
                "workload": {
                    "uuid": "u",
                    "axes": {"b": 3},
                    "inputs": {
                        "x": {"type": "custom"},
                        "idx": {"type": "custom"},
                        "eps": {"type": "scalar", "value": 0.5},
                    },
                },
            }
            x, idx, eps = fi._hone_fi_inputs(f)
            self.assertEqual(seen, {"b": 3, "h": 4, "h2": 8, "eps": 0.5})
            self.assertTrue(bool((x == 1).all()))
            self.assertEqual(idx.tolist(), [0, 1, 2])
            self.assertEqual(eps, 0.5)
            d["custom_inputs_entrypoint"] = "nosuch"
            with self.assertRaisesRegex(ValueError, "nosuch"):
                fi._hone_fi_inputs(f)
        finally:
            del fi.generate

    def test_scalars_and_stored_tensors(self):
        with tempfile.TemporaryDirectory() as d:
            safetensors(os.path.join(d, "blob.safetensors"), "idx", [5, 6, 7])
            inputs = {
                "idx": {"type": "safetensors", "path": "blob.safetensors", "tensor_key": "idx"},
                "eps": {"type": "scalar", "value": 1e-6},
            }
            _, idx, eps = fi._hone_fi_inputs(self.fi(inputs, root=d))
            self.assertEqual(idx.tolist(), [5, 6, 7])
            self.assertEqual(eps, 1e-6)
            with self.assertRaisesRegex(
                ValueError, "holds int32 \\[3\\], the definition asks for int32 \\[2\\]"
            ):
                fi._hone_fi_inputs(self.fi(inputs, axes={"b": 2}, root=d))
            bad = dict(inputs, idx=dict(inputs["idx"], tensor_key="nope"))
            with self.assertRaisesRegex(KeyError, "no tensor 'nope'"):
                fi._hone_fi_inputs(self.fi(bad, root=d))

    def test_results_in_output_order_from_any_form(self):
        y, n = torch.zeros(3, 4), torch.zeros(3, dtype=torch.int64)
        f = self.fi()
        for result in ((y, n), [y, n], {"n": n, "y": y}):
            out = fi._hone_fi_outputs(result, f)
            self.assertIs(out[0], y)
            self.assertIs(out[1], n)
        with self.assertRaisesRegex(ValueError, "has 1 values, the definition 2 outputs"):
            fi._hone_fi_outputs(y, f)

    def test_shapes_and_dtypes_are_checked_and_outputs_allocated(self):
        x = torch.zeros(5, 8, dtype=torch.bfloat16)
        args = (x, torch.zeros(5, dtype=torch.int32), 1e-6)
        f = self.fi()
        y, n = fi._hone_fi_allocate(f, args)
        self.assertEqual((list(y.shape), y.dtype, list(n.shape)), ([5, 4], torch.float32, [5]))
        fi._hone_fi_checked((y, n), args, f)
        with self.assertRaisesRegex(ValueError, "output 'y' has the wrong shape"):
            fi._hone_fi_checked((y.t(), n), args, f)
        with self.assertRaisesRegex(TypeError, "output 'n' has the wrong dtype"):
            fi._hone_fi_checked((y, n.int()), args, f)


class TaskInfoTest(unittest.TestCase):
    """What a generated problem says of itself in hone_task (hone_oracle.py
    parse_task_info): its baselines and whether it reads files beside it."""

    def test_baselines_and_data_beside(self):
        import types
        import hone_oracle

        info = {"format": "flashinfer-trace", "baselines": "eager", "data_beside": True}
        self.assertEqual(
            hone_oracle.parse_task_info(types.SimpleNamespace(hone_task=info), "p.py"), info
        )
        for bad in ({"baselines": "compile"}, {"data_beside": "yes"}):
            with self.assertRaisesRegex(hone_oracle.OracleError, "p.py: hone_task"):
                hone_oracle.parse_task_info(types.SimpleNamespace(hone_task=bad), "p.py")


if __name__ == "__main__":
    unittest.main()
