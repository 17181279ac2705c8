"""Tests for python/hone_oracle.py, driven through its real protocol.

Run: python3 -m unittest discover -s python/tests -v

The oracle runs as a subprocess under HONE_PYTHON, else this interpreter if
it imports torch, else the first python3 on PATH that does (the worker's own
rule). Checks that need torch (running a model ourselves) run in that same
interpreter through a small helper script, so the tests themselves need only
the standard library. Without any torch the tests skip with a message.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(os.path.dirname(HERE), "hone_oracle.py")
PROBLEMS = os.path.join(HERE, "problems")


def _imports_torch(python):
    try:
        return (
            subprocess.run(
                [python, "-c", "import torch, numpy"], capture_output=True, timeout=60
            ).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


def find_torch_python():
    env = os.environ.get("HONE_PYTHON")
    if env:
        return env if _imports_torch(env) else None
    if _imports_torch(sys.executable):
        return sys.executable
    seen = set()
    for d in os.environ.get("PATH", "").split(os.pathsep):
        cand = os.path.join(d, "python3")
        real = os.path.realpath(cand)
        if os.access(cand, os.X_OK) and real not in seen:
            seen.add(real)
            if _imports_torch(cand):
                return cand
    return None


PYTHON = find_torch_python()
NO_TORCH = "no python3 that imports torch and numpy (set HONE_PYTHON or apt-get install python3-torch python3-numpy)"


class Oracle:
    """One oracle subprocess; request() sends a line and reads one reply."""

    def __init__(self, *extra):
        self.proc = subprocess.Popen(
            [PYTHON, ORACLE, "--device", "cpu", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def send_raw(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            raise AssertionError(f"the oracle died (exit {self.proc.wait()})")
        return json.loads(reply)

    def request(self, **req):
        return self.send_raw(json.dumps(req))

    def close(self):
        try:
            r = self.request(op="exit")
            assert r["ok"]
        finally:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
            self.proc.stdout.close()


# Runs in the torch interpreter: rebuilds the model and inputs independently of
# the oracle and compares with the files the oracle wrote.
HELPER = r"""
import json, sys, importlib.util, torch, numpy as np
spec = json.loads(sys.argv[1])
m = importlib.util.spec_from_file_location("prob", spec["path"])
mod = importlib.util.module_from_spec(m); m.loader.exec_module(mod)
torch.manual_seed(0); init = mod.get_init_inputs()
torch.manual_seed(0); model = mod.Model(*init)
torch.manual_seed(spec["seed"]); args = mod.get_inputs()
torch.manual_seed(spec["seed"])
with torch.no_grad():
    out = model(*args)
outs = list(out) if isinstance(out, (tuple, list)) else [out]
np_dt = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i32": np.int32, "bool": np.bool_}
def load(t):
    return np.fromfile(t["file"], dtype=np_dt[t["dtype"]]).reshape(t["shape"])
res = {"inputs_equal": [], "params_equal": [], "outputs_equal": [], "ref64_max_rel": []}
tensors = spec["tensors"]
for t in tensors:
    if t["role"] == "input":
        a = args[t["index"]]
        a = a.numpy() if torch.is_tensor(a) else np.array(a, dtype=np_dt[t["dtype"]])
        res["inputs_equal"].append(bool(np.array_equal(load(t), a)))
    elif t["role"] == "param":
        res["params_equal"].append(bool(np.array_equal(load(t), model.state_dict()[t["name"]].numpy())))
    elif t["role"] == "output":
        res["outputs_equal"].append(bool(np.array_equal(load(t), outs[t["index"]].numpy())))
outs32 = {t["index"]: load(t) for t in tensors if t["role"] == "output"}
for t in tensors:
    if t["role"] == "ref64_output":
        r = load(t).astype(np.float64); o = outs32[t["index"]].astype(np.float64)
        res["ref64_max_rel"].append(float(np.abs(r - o).max() / max(np.abs(r).max(), 1e-30)))
print(json.dumps(res))
"""


def run_helper(**spec):
    out = subprocess.run(
        [PYTHON, "-c", HELPER, json.dumps(spec)], capture_output=True, text=True, timeout=120
    )
    if out.returncode != 0:
        raise AssertionError(out.stderr)
    return json.loads(out.stdout)


def read(t):
    with open(t["file"], "rb") as f:
        return f.read()


def by_role(reply, role):
    return [t for t in reply["tensors"] if t["role"] == role]


def prob(name):
    return os.path.join(PROBLEMS, name + ".py")


@unittest.skipIf(PYTHON is None, NO_TORCH)
class OracleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.oracle = Oracle()
        cls.tmp = tempfile.mkdtemp(prefix="hone-oracle-test-")
        cls.loaded = {}

    @classmethod
    def tearDownClass(cls):
        cls.oracle.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def req(self, **kw):
        return self.oracle.request(**kw)

    def load(self, name, **kw):
        key = (name, tuple(sorted(kw.items())))
        if key not in self.loaded:
            r = self.req(op="load", path=prob(name), **kw)
            self.assertTrue(r["ok"], r)
            self.assertEqual(r["status"], "loaded", r)
            self.loaded[key] = r
        return self.loaded[key]

    def gen(self, pid, seed, dist=0, tag=None):
        d = os.path.join(self.tmp, tag or f"{pid}-{seed}-{dist}")
        r = self.req(op="generate", problem=pid, seed=seed, distribution=dist, out_dir=d)
        self.assertTrue(r["ok"], r)
        return r

    # -- protocol ------------------------------------------------------------

    def test_hello(self):
        r = self.req(op="hello", id=7)
        self.assertTrue(r["ok"])
        self.assertEqual(r["id"], 7)
        self.assertIn("torch", r)
        self.assertIn("python", r)
        self.assertEqual(r["devices"][0]["name"], "cpu")

    def test_survives_malformed_requests(self):
        r = self.oracle.send_raw("this is not json {")
        self.assertFalse(r["ok"])
        self.assertIn("malformed", r["error"])
        r = self.oracle.send_raw("[1, 2]")
        self.assertFalse(r["ok"])
        r = self.req(op="no_such_op")
        self.assertFalse(r["ok"])
        r = self.req(op="generate", problem="p999", seed=0, out_dir=self.tmp)
        self.assertFalse(r["ok"])
        self.assertIn("unknown problem", r["error"])
        r = self.req(op="load", path=prob("does_not_exist"))
        self.assertFalse(r["ok"])
        self.assertTrue(self.req(op="hello")["ok"])

    def test_check_flag(self):
        out = subprocess.run(
            [PYTHON, ORACLE, "--check"], capture_output=True, text=True, timeout=60
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("torch", out.stdout)

    def test_runtime_flag_answers_without_torch_and_like_the_hello(self):
        out = subprocess.run(
            [PYTHON, ORACLE, "--runtime"], capture_output=True, text=True, timeout=60
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        probe = json.loads(out.stdout.strip().splitlines()[-1])
        hello = self.req(op="hello")
        self.assertEqual(probe["executable"], hello["executable"])
        self.assertEqual(probe["runtime"], hello["runtime"])

    def fake_torch_without_bytecode(self):
        """A torch package (and numpy) with no compiled bytecode beside it,
        found first: what --runtime looks for, without importing either."""
        root = os.path.join(self.tmp, "site-without-bytecode")
        for name in ("torch", "numpy"):
            os.makedirs(os.path.join(root, name), exist_ok=True)
            with open(os.path.join(root, name, "__init__.py"), "w") as f:
                f.write("")
        return root

    def test_bytecode_dir_keeps_compiled_modules_there(self):
        d = os.path.join(self.tmp, "bytecode")
        env = dict(
            os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=self.fake_torch_without_bytecode()
        )
        env.pop("PYTHONPYCACHEPREFIX", None)
        out = subprocess.run(
            [PYTHON, ORACLE, "--bytecode-dir", d, "--runtime"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        runtime = json.loads(out.stdout.strip().splitlines()[-1])["runtime"]
        self.assertEqual(runtime["pycache_prefix"], os.path.abspath(d))
        # What it imported after the flag (sysconfig) was compiled into the folder,
        # despite PYTHONDONTWRITEBYTECODE.
        written = [f for _, _, fs in os.walk(d) for f in fs if f.endswith(".pyc")]
        self.assertTrue(written, "no .pyc under " + d)
        # An environment that names its own prefix keeps it.
        env["PYTHONPYCACHEPREFIX"] = os.path.join(self.tmp, "theirs")
        out = subprocess.run(
            [PYTHON, ORACLE, "--bytecode-dir", d, "--runtime"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        runtime = json.loads(out.stdout.strip().splitlines()[-1])["runtime"]
        self.assertEqual(runtime["pycache_prefix"], env["PYTHONPYCACHEPREFIX"])

    def test_no_bytecode_dir_where_torch_has_its_own(self):
        # A prefix would hide the bytecode installed beside torch's sources.
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if not spec or not os.path.exists(importlib.util.cache_from_source(spec.origin)):
            self.skipTest("this torch has no bytecode beside its sources")
        env = dict(os.environ)
        env.pop("PYTHONPYCACHEPREFIX", None)
        d = os.path.join(self.tmp, "unused-bytecode")
        out = subprocess.run(
            [PYTHON, ORACLE, "--bytecode-dir", d, "--runtime"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        runtime = json.loads(out.stdout.strip().splitlines()[-1])["runtime"]
        self.assertEqual(runtime["pycache_prefix"], "")
        self.assertFalse(os.path.exists(d))

    # -- loading and the contract --------------------------------------------

    def test_contract_params_after_args(self):
        r = self.load("linear_gelu_scale")
        ins = r["inputs"]
        self.assertEqual([i["index"] for i in ins], list(range(len(ins))))
        self.assertEqual(
            [(i["name"], i["role"]) for i in ins],
            [("x", "input"), ("linear.weight", "param"), ("linear.bias", "param")],
        )
        self.assertEqual(ins[1]["shape"], [512, 1024])
        self.assertEqual(
            r["outputs"],
            [{"index": 0, "name": "out", "role": "output", "dtype": "f32", "shape": [128, 512]}],
        )

    def test_buffer_in_contract(self):
        r = self.load("buffer")
        self.assertEqual(
            [(i["name"], i["kind"]) for i in r["inputs"]],
            [("x", "forward_arg"), ("offset", "buffer")],
        )
        g = self.gen(r["problem"], 3)
        res = run_helper(path=prob("buffer"), seed=3, tensors=g["tensors"])
        self.assertEqual(res["params_equal"], [True])
        self.assertEqual(res["outputs_equal"], [True])

    def test_python_number_becomes_0d_tensor(self):
        r = self.load("scalar_arg")
        alpha = r["inputs"][1]
        self.assertEqual(
            (alpha["name"], alpha["shape"], alpha["dtype"], alpha["python_type"]),
            ("alpha", [], "f32", "float"),
        )
        g = self.gen(r["problem"], 0)
        inp = by_role(g, "input")[1]
        self.assertEqual(inp["bytes"], 4)
        res = run_helper(path=prob("scalar_arg"), seed=0, tensors=g["tensors"])
        self.assertEqual(res["inputs_equal"], [True, True])
        self.assertEqual(res["outputs_equal"], [True])

    def test_tuple_output(self):
        r = self.load("tuple_out")
        self.assertEqual(
            [(o["name"], o["dtype"], o["shape"]) for o in r["outputs"]],
            [("out0", "f32", [64]), ("out1", "i64", [64])],
        )
        g = self.gen(r["problem"], 2)
        res = run_helper(path=prob("tuple_out"), seed=2, tensors=g["tensors"])
        self.assertEqual(res["outputs_equal"], [True, True])

    def test_scaling_and_derived_sizes(self):
        r = self.load("linear_gelu_scale", shape_scale=0.25)
        self.assertEqual(r["scale"], 0.25)
        self.assertEqual(r["sizes"]["batch_size"], {"original": 128, "scaled": 32})
        self.assertEqual(r["sizes"]["in_features"], {"original": 1024, "scaled": 256})
        self.assertEqual(r["derived_sizes"]["out_features"], 128)  # in_features // 2 follows
        self.assertEqual(r["inputs"][0]["shape"], [32, 256])
        self.assertEqual(r["inputs"][1]["shape"], [128, 256])
        self.assertEqual(r["outputs"][0]["shape"], [32, 128])
        g = self.gen(r["problem"], 0)
        self.assertEqual(g["sizes"], r["sizes"])  # stated in every result

    def test_scaling_keeps_kernel_and_axis(self):
        r = self.load("conv2d", shape_scale=0.125)
        self.assertEqual(r["unscaled"]["kernel_size"], 3)
        self.assertEqual(r["unscaled"]["in_channels"], 3)
        self.assertEqual(r["sizes"]["height"]["scaled"], 16)
        self.assertEqual(r["inputs"][0]["shape"], [2, 3, 16, 32])
        self.assertEqual([i["name"] for i in r["inputs"]], ["x", "conv.weight", "conv.bias"])
        s = self.load("sum_dim", shape_scale=0.0625)
        self.assertEqual(s["unscaled"]["reduce_dim"], 1)
        self.assertEqual(s["outputs"][0]["shape"], [1, 1, 16])

    def test_policy(self):
        r = self.req(op="load", path=prob("conv2d"), policy="tiny")
        self.assertTrue(r["ok"], r)
        self.assertLess(r["scale"], 1.0)
        self.assertLessEqual(r["footprint_bytes"], 1.25 * (4 << 20))
        self.assertEqual(r["policy"], "tiny")

    def test_broken_problem_is_an_error_reply(self):
        r = self.req(op="load", path=prob("broken"))
        self.assertFalse(r["ok"])
        self.assertIn("broken.py:14", r["error"])
        self.assertIn("ValueError", r["error"])
        self.assertTrue(self.req(op="hello")["ok"])

    def test_missing_package_is_skipped(self):
        r = self.req(op="load", path=prob("missing_package"))
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["status"], "skipped")
        self.assertIn("hone_no_such_package_xyz", r["reason"])

    def test_folder(self):
        r = self.req(op="load", path=PROBLEMS, shape_scale=0.5)
        self.assertTrue(r["ok"])
        by = {os.path.basename(p["path"]): p for p in r["problems"]}
        self.assertEqual(by["missing_package.py"]["status"], "skipped")
        self.assertFalse(by["broken.py"]["ok"])
        self.assertEqual(by["relu.py"]["status"], "loaded")
        self.assertEqual(by["softmax.py"]["inputs"][0]["shape"], [8, 8192])

    # -- generate ------------------------------------------------------------

    def test_same_seed_same_bytes_other_seed_differs(self):
        pid = self.load("relu")["problem"]
        a = self.gen(pid, 5, tag="a")
        b = self.gen(pid, 5, tag="b")
        c = self.gen(pid, 6, tag="c")
        for ta, tb in zip(a["tensors"], b["tensors"]):
            self.assertEqual(read(ta), read(tb), ta["name"])
        self.assertNotEqual(read(by_role(a, "input")[0]), read(by_role(c, "input")[0]))
        self.assertEqual(by_role(a, "input")[0]["bytes"], 16 * 4096 * 4)

    def test_outputs_match_the_model_and_ref64_is_close(self):
        for name in ("relu", "sum_dim", "softmax", "linear_gelu_scale"):
            with self.subTest(name):
                r = self.load(name)
                g = self.gen(r["problem"], 11)
                roles = [t["role"] for t in g["tensors"]]
                self.assertEqual(roles[-1], "ref64_output")
                self.assertEqual(by_role(g, "ref64_output")[0]["dtype"], "f64")
                res = run_helper(path=prob(name), seed=11, tensors=g["tensors"])
                self.assertTrue(all(res["inputs_equal"]), res)
                self.assertTrue(all(res["params_equal"]), res)
                self.assertEqual(res["outputs_equal"], [True], res)
                self.assertLess(res["ref64_max_rel"][0], 1e-4, res)

    def test_conv2d_with_parameters(self):
        r = self.load("conv2d", shape_scale=0.125)
        g = self.gen(r["problem"], 1)
        self.assertEqual(
            [t["role"] for t in g["tensors"]], ["input", "param", "param", "output", "ref64_output"]
        )
        self.assertTrue(g["ref64"]["available"])
        # What the float64 forward cost: the worker checks precision on fewer
        # value sets when it is slow (src/pytorch/oracle_reference.h).
        self.assertGreater(g["ref64"]["seconds"], 0)
        self.assertLess(g["ref64"]["seconds"], 60)

    def test_train_mode_state_does_not_drift(self):
        r = self.load("batchnorm_half")
        self.assertEqual(
            [i["name"] for i in r["inputs"]],
            [
                "x",
                "bn.weight",
                "bn.bias",
                "bn.running_mean",
                "bn.running_var",
                "bn.num_batches_tracked",
            ],
        )
        self.assertEqual(r["outputs"][0]["dtype"], "f16")
        a = self.gen(r["problem"], 1, tag="bn-a")
        self.gen(r["problem"], 2, tag="bn-x")
        b = self.gen(r["problem"], 1, tag="bn-b")
        for ta, tb in zip(a["tensors"], b["tensors"]):
            self.assertEqual(read(ta), read(tb), ta["name"])
        self.assertEqual(by_role(a, "output")[0]["bytes"], 64 * 32 * 2)
        self.assertEqual(by_role(a, "ref64_output")[0]["dtype"], "f64")

    def test_a_forward_that_draws_random_numbers_is_said_and_seeded(self):
        self.assertFalse(self.load("relu")["uses_rng"])
        r = self.load("dropout_train")
        self.assertTrue(r["uses_rng"])
        # Seeded per value set: the same seed gives the same mask.
        a = self.gen(r["problem"], 3, tag="drop-a")
        b = self.gen(r["problem"], 3, tag="drop-b")
        self.assertEqual(read(by_role(a, "output")[0]), read(by_role(b, "output")[0]))

    # -- distributions -------------------------------------------------------

    def test_distributions_listing(self):
        pid = self.load("relu")["problem"]
        r = self.req(op="distributions", problem=pid)
        self.assertEqual([d["name"] for d in r["distributions"]], ["get_inputs", "scaled"])
        r = self.req(op="distributions", problem=self.load("opt_out")["problem"])
        self.assertEqual([d["name"] for d in r["distributions"]], ["get_inputs"])
        r = self.req(op="distributions", problem=self.load("custom_dist")["problem"])
        self.assertEqual(
            [(d["name"], d["source"]) for d in r["distributions"]],
            [("get_inputs", "builtin"), ("scaled", "builtin"), ("large_values", "task")],
        )
        self.assertIn("six orders", r["distributions"][2]["description"])

    def test_signed_inputs_where_get_inputs_draws_only_non_negative_values(self):
        r = self.load("relu_rand")
        self.assertEqual(
            [d["name"] for d in r["distributions"]], ["get_inputs", "scaled", "signed"]
        )
        self.assertEqual(r["distributions_left_out"], [])
        plain = self._floats(by_role(self.gen(r["problem"], 2, 0, tag="p"), "input")[0])
        self.assertTrue(all(v >= 0 for v in plain))
        g = self.gen(r["problem"], 2, 2, tag="s")
        signed = self._floats(by_role(g, "input")[0])
        self.assertTrue(any(v < 0 for v in signed) and any(v > 0 for v in signed))
        # The expected outputs are the Model's on the signed values.
        out = self._floats(by_role(g, "output")[0])
        self.assertEqual(list(out), [max(v, 0.0) for v in signed])

    def test_signed_is_left_out_where_the_reference_is_not_finite_on_it(self):
        r = self.load("log_rand")
        self.assertEqual([d["name"] for d in r["distributions"]], ["get_inputs", "scaled"])
        self.assertEqual([d["name"] for d in r["distributions_left_out"]], ["signed"])
        self.assertIn("not finite", r["distributions_left_out"][0]["why"])

    def test_signed_is_left_out_where_the_reference_raises_on_it(self):
        r = self.load("checked_rand")
        self.assertEqual([d["name"] for d in r["distributions"]], ["get_inputs", "scaled"])
        self.assertIn(
            "raised on signed inputs (ValueError: probabilities",
            r["distributions_left_out"][0]["why"],
        )

    def test_signed_keeps_a_positive_definite_matrix_positive_definite(self):
        r = self.load("spd_rand")  # S A S for a diagonal S of signs
        self.assertEqual(
            [d["name"] for d in r["distributions"]], ["get_inputs", "scaled", "signed"]
        )
        g = self.gen(r["problem"], 1, 2, tag="spd")
        self.assertTrue(all(abs(v) < 1e30 for v in self._floats(by_role(g, "output")[0])))

    def test_signed_says_nothing_where_no_input_is_non_negative(self):
        r = self.load("relu")  # torch.randn: already signed
        self.assertEqual([d["name"] for d in r["distributions"]], ["get_inputs", "scaled"])
        self.assertIn("non-negative", r["distributions_left_out"][0]["why"])

    def test_no_such_distribution(self):
        pid = self.load("opt_out")["problem"]
        r = self.req(op="generate", problem=pid, seed=0, distribution=1, out_dir=self.tmp)
        self.assertFalse(r["ok"])
        self.assertIn("no distribution 1", r["error"])

    def _floats(self, t):
        import array

        a = array.array("f")
        a.frombytes(read(t))
        return a

    def _ints(self, t):
        import array

        a = array.array("q")
        a.frombytes(read(t))
        return a

    def test_scaled_keeps_triangle_and_differs(self):
        r = self.load("tril_matmul")
        m = r["sizes"]["M"]["scaled"]
        for dist in (0, 1):
            g = self.gen(r["problem"], 4, dist)
            for t in by_role(g, "input"):
                a = self._floats(t)
                upper = [a[i * m + j] for i in range(m) for j in range(i + 1, m)]
                self.assertTrue(all(v == 0.0 for v in upper), f"dist {dist}: not lower-triangular")
                lower = [a[i * m + j] for i in range(m) for j in range(i + 1)]
                self.assertTrue(any(v != 0.0 for v in lower))
        a0 = self._floats(by_role(self.gen(r["problem"], 4, 0, tag="t0"), "input")[0])
        a1 = self._floats(by_role(self.gen(r["problem"], 4, 1, tag="t1"), "input")[0])
        self.assertNotEqual(list(a0), list(a1))

    def test_scaled_never_changes_a_tensor_the_problem_keeps(self):
        # The scaled distribution multiplies inputs in place only when nothing
        # else holds them; a module-level tensor handed out by get_inputs()
        # must come back the same on every unscaled draw.
        r = self.load("global_input")
        pid = r["problem"]
        before = self._floats(by_role(self.gen(pid, 3, 0, tag="a"), "input")[0])
        for tag in ("s1", "s2"):
            scaled = by_role(self.gen(pid, 3, 1, tag=tag), "input")
            a, b = self._floats(scaled[0]), self._floats(scaled[1])
            self.assertNotEqual(list(a), list(before))
            self.assertEqual(len(a), len(b))
        after = self._floats(by_role(self.gen(pid, 3, 0, tag="b"), "input")[0])
        self.assertEqual(list(before), list(after))

    def test_scaled_keeps_index_range(self):
        r = self.load("gather_index")
        n = r["sizes"]["num_embeddings"]["scaled"]
        self.assertEqual(r["inputs"][0]["dtype"], "i64")
        for seed in (0, 1, 2):
            g = self.gen(r["problem"], seed, 1)
            idx = self._ints(by_role(g, "input")[0])
            self.assertTrue(all(0 <= v < n for v in idx))
            self.assertTrue(g["ref64"]["available"])

    def test_custom_distribution_positive(self):
        r = self.load("custom_dist")
        for dist in (0, 1, 2):
            g = self.gen(r["problem"], 9, dist)
            x = self._floats(by_role(g, "input")[0])
            self.assertTrue(all(v > 0 for v in x), dist)
        self.assertEqual(g["distribution_name"], "large_values")
        self.assertGreater(max(x) / min(x), 1e4)


@unittest.skipIf(PYTHON is None, NO_TORCH)
class NoTorchTest(unittest.TestCase):
    def test_check_without_torch(self):
        # An interpreter that cannot import torch: python with -I and an empty path.
        # The oracle's folder comes first, as when it runs as a script: its
        # parts (hone_oracle_*.py) are imported from there.
        env = dict(os.environ, PYTHONPATH="")
        code = (
            "import sys; sys.path = [p for p in sys.path if 'packages' not in p]; "
            f"sys.path.insert(0, {os.path.dirname(ORACLE)!r}); "
            "sys.argv = ['hone_oracle.py', '--check']; "
            f"exec(compile(open({ORACLE!r}).read(), {ORACLE!r}, 'exec'))"
        )
        out = subprocess.run(
            [PYTHON, "-c", code], capture_output=True, text=True, env=env, timeout=60
        )
        self.assertEqual(out.returncode, 3, out.stderr)
        self.assertIn("HONE_PYTHON", out.stderr)


if __name__ == "__main__":
    unittest.main()
