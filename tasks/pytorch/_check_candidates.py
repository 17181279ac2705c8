#!/usr/bin/env python3
"""Checks the CPU candidates under tasks/pytorch/candidates against their problems.

Run from anywhere with a Python that has torch (Debian's: /usr/bin/python3):

    /usr/bin/python3 tasks/pytorch/_check_candidates.py [--no-oracle] [--no-inline] [problem ...]

For every problem tasks/pytorch/<stem>.py that has a folder candidates/<stem>/:

  * builds the model as hone's oracle does (torch.manual_seed(0) before get_init_inputs() and
    again before Model(...)), makes inputs with get_inputs() after torch.manual_seed(1), and
    computes the expected outputs (no_grad, train mode, like KernelBench) and a float64
    reference (a .double() copy of the model fed widened inputs);
  * derives the candidate contract: forward arguments, then the state_dict() tensors in order; a
    Python number becomes a 0-d tensor (float -> f32, int -> i64, bool -> bool, as the oracle
    does). Unless --no-oracle, the contract is also asked of python/hone_oracle.py and the two
    must agree;
  * compiles each native .cpp candidate (g++ -O2 -shared -fPIC -I include), calls hone_forward
    through ctypes with NaN-poisoned outputs, and checks the inputs were left alone;
  * imports each CPU compat_*.py (not *_cuda.py), builds ModelNew(*init_inputs) under
    torch.manual_seed(0), loads the Model's state_dict and runs forward. --no-inline skips the
    load_inline ones (about a minute each to build on 2 cores).

A result matches when every output has the contract's shape and passes torch.allclose(atol=1e-5,
rtol=1e-4). The expectation comes from the file name: right.cpp, compat_torch.py and
compat_inline_cpu.py must match, wrong.cpp and *_wrong.py must not; a matching candidate must
also pass the precision check (relative L2 error against the float64 reference at most
max(8 * PyTorch's own float32 error, 1e-5)). Finally expectations.txt and gpu_expectations.txt
must list every candidate file. Exits 1 on any surprise.
"""

import argparse
import copy
import ctypes
import importlib.util
import inspect
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CANDIDATES = os.path.join(HERE, "candidates")
os.environ.setdefault("TORCH_EXTENSIONS_DIR", "/tmp/hone_torch_extensions")

import torch  # noqa: E402  (after TORCH_EXTENSIONS_DIR is set)

ATOL, RTOL = 1e-5, 1e-4
PRECISION_FACTOR, PRECISION_FLOOR = 8.0, 1e-5
MAX_DIMS = 8

# hone_dtype values of include/hone/kernel.h.
HONE_DTYPES = {
    torch.float32: (0, "f32"), torch.float64: (1, "f64"), torch.float16: (2, "f16"),
    torch.bfloat16: (3, "bf16"), torch.int8: (4, "i8"), torch.uint8: (5, "u8"),
    torch.int16: (6, "i16"), torch.int32: (7, "i32"), torch.int64: (8, "i64"),
    torch.bool: (9, "bool"),
}


class HoneTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("ndim", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_DIMS), ("stride", ctypes.c_int64 * MAX_DIMS)]


class HoneArgs(ctypes.Structure):
    _fields_ = [("inputs", ctypes.POINTER(HoneTensor)), ("num_inputs", ctypes.c_int32),
                ("outputs", ctypes.POINTER(HoneTensor)), ("num_outputs", ctypes.c_int32),
                ("stream", ctypes.c_void_p), ("workspace", ctypes.c_void_p),
                ("workspace_bytes", ctypes.c_size_t)]


def number_tensor(v):
    """A Python number forward argument as the candidate receives it (the oracle's rule)."""
    if isinstance(v, bool):
        return torch.tensor(v, dtype=torch.bool)
    if isinstance(v, int):
        return torch.tensor(v, dtype=torch.int64)
    return torch.tensor(v, dtype=torch.float32)


def flatten(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flatten(o)]
    return [out if torch.is_tensor(out) else torch.tensor(out)]


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Problem:
    def __init__(self, stem):
        self.stem = stem
        self.path = os.path.join(HERE, stem + ".py")
        self.mod = load_module(self.path, "hone_problem_" + stem)
        torch.manual_seed(0)
        self.init_inputs = self.mod.get_init_inputs()
        self.model = self.build(self.mod.Model)
        torch.manual_seed(1)
        self.args = self.mod.get_inputs()
        self.state = self.model.state_dict()
        with torch.no_grad():
            self.expected = flatten(self.model(*self.cloned_args()))
            ref = copy.deepcopy(self.model).double()
            wide = [a.double() if torch.is_tensor(a) and a.is_floating_point() else a
                    for a in self.cloned_args()]
            self.ref64 = [t.double() for t in flatten(ref(*wide))]
        params = list(inspect.signature(self.mod.Model.forward).parameters)[1:]
        names = params[:len(self.args)]
        names += [f"arg{i}" for i in range(len(names), len(self.args))]
        self.inputs = [(n, a if torch.is_tensor(a) else number_tensor(a))
                       for n, a in zip(names, self.args)]
        self.inputs += list(self.state.items())
        one = len(self.expected) == 1
        self.outputs = [("out" if one else f"out{i}", t) for i, t in enumerate(self.expected)]

    def build(self, cls):
        torch.manual_seed(0)
        return cls(*self.init_inputs)

    def cloned_args(self):
        return [a.clone() if torch.is_tensor(a) else a for a in self.args]

    def contract(self):
        def row(name, t):
            return (name, HONE_DTYPES[t.dtype][1], list(t.shape))
        return ([row(n, t) for n, t in self.inputs], [row(n, t) for n, t in self.outputs])


def oracle_contracts(stems):
    """Contracts as python/hone_oracle.py reports them, {stem: (inputs, outputs)}."""
    lines = [json.dumps({"op": "load", "path": os.path.join(HERE, s + ".py"), "id": s})
             for s in stems] + [json.dumps({"op": "exit"})]
    proc = subprocess.run([sys.executable, os.path.join(REPO, "python", "hone_oracle.py"),
                           "--device", "cpu"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=600)
    result = {}
    for line in proc.stdout.splitlines():
        r = json.loads(line)
        if r.get("id") in stems:
            if not r.get("ok") or r.get("status") != "loaded":
                result[r["id"]] = r.get("error") or r.get("reason") or r.get("status")
                continue
            result[r["id"]] = ([(t["name"], t["dtype"], t["shape"]) for t in r["inputs"]],
                               [(t["name"], t["dtype"], t["shape"]) for t in r["outputs"]])
    return result


def hone_tensor(t):
    assert t.dim() <= MAX_DIMS
    h = HoneTensor()
    h.data = t.data_ptr()
    h.dtype = HONE_DTYPES[t.dtype][0]
    h.ndim = t.dim()
    for i, (s, st) in enumerate(zip(t.shape, t.stride())):
        h.shape[i], h.stride[i] = s, st
    return h


def compile_native(src, workdir):
    so = os.path.join(workdir, os.path.relpath(src, CANDIDATES).replace(os.sep, "__") + ".so")
    cmd = ["g++", "-std=c++17", "-O2", "-shared", "-fPIC", "-I", os.path.join(REPO, "include"),
           "-o", so, src]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("compile failed: " + proc.stderr.strip().splitlines()[0])
    return so


def run_native(problem, so):
    lib = ctypes.CDLL(so)
    fwd = lib.hone_forward
    fwd.argtypes = [ctypes.POINTER(HoneArgs)]
    fwd.restype = ctypes.c_int
    ins = [t.contiguous().clone() for _, t in problem.inputs]
    pristine = [t.clone() for t in ins]
    outs = [torch.full(t.shape, float("nan"), dtype=t.dtype) if t.is_floating_point()
            else torch.zeros_like(t) for _, t in problem.outputs]
    in_arr = (HoneTensor * len(ins))(*[hone_tensor(t) for t in ins])
    out_arr = (HoneTensor * len(outs))(*[hone_tensor(t) for t in outs])
    workspace = None
    args = HoneArgs(in_arr, len(ins), out_arr, len(outs), None, None, 0)
    if hasattr(lib, "hone_workspace_bytes"):
        wsb = lib.hone_workspace_bytes
        wsb.argtypes = [ctypes.POINTER(HoneTensor), ctypes.c_int32]
        wsb.restype = ctypes.c_size_t
        nbytes = wsb(in_arr, len(ins))
        if nbytes:
            workspace = torch.empty(nbytes + 256, dtype=torch.uint8)
            args.workspace = (workspace.data_ptr() + 255) // 256 * 256
            args.workspace_bytes = nbytes
    rc = fwd(ctypes.byref(args))
    if rc != 0:
        raise RuntimeError(f"hone_forward returned {rc}")
    for (name, _), a, b in zip(problem.inputs, ins, pristine):
        if not torch.equal(a, b):
            raise RuntimeError(f"input {name} was modified")
    return outs


def run_compat(problem, path):
    mod = load_module(path, "hone_compat_" + problem.stem + "_" +
                      os.path.splitext(os.path.basename(path))[0])
    model = problem.build(mod.ModelNew)
    model.load_state_dict(problem.state)
    with torch.no_grad():
        return flatten(model(*problem.cloned_args()))


def rel_l2(x, ref):
    x = x.double()
    den = ref.norm().item()
    return (x - ref).norm().item() / den if den > 0 else (x - ref).norm().item()


def compare(problem, got):
    """(matches, max abs error, relative L2 error vs f64, precision bound)."""
    if len(got) != len(problem.expected):
        return False, float("inf"), float("inf"), 0.0
    match, max_err, err, bound = True, 0.0, 0.0, 0.0
    for g, e, r in zip(got, problem.expected, problem.ref64):
        if g.shape != e.shape or g.dtype != e.dtype:
            return False, float("inf"), float("inf"), 0.0
        match &= torch.allclose(g, e, atol=ATOL, rtol=RTOL)
        diff = (g.double() - e.double()).abs()
        # Python's max() drops a NaN second argument, so NaN (an unwritten output) is kept here.
        max_err = nan_max(max_err, diff.max().item() if diff.numel() else 0.0)
        err = nan_max(err, rel_l2(g, r))
        bound = max(bound, PRECISION_FACTOR * rel_l2(e, r), PRECISION_FLOOR)
    return match, max_err, err, bound


def nan_max(a, b):
    return float("nan") if math.isnan(a) or math.isnan(b) else max(a, b)


def candidate_files(stem):
    folder = os.path.join(CANDIDATES, stem)
    return sorted(f for f in os.listdir(folder) if not f.startswith(("_", ".")) and
                  os.path.splitext(f)[1] in (".cpp", ".cu", ".py"))


def is_gpu(name):
    return name.endswith(".cu") or name.endswith("_cuda.py")


def check_expectation_files(stems):
    """Every candidate file is listed in the right expectations file; returns problems found."""
    errors = []
    for fname, gpu in (("expectations.txt", False), ("gpu_expectations.txt", True)):
        listed = set()
        with open(os.path.join(HERE, fname)) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    stem, cand = line.split()[:2]
                    listed.add(cand)
                    if not os.path.exists(os.path.join(CANDIDATES, cand)):
                        errors.append(f"{fname}: {cand} does not exist")
                    if cand.split("/")[0] != stem:
                        errors.append(f"{fname}: {cand} listed under {stem}")
        for stem in stems:
            for c in candidate_files(stem):
                if is_gpu(c) == gpu and f"{stem}/{c}" not in listed:
                    errors.append(f"{fname}: {stem}/{c} is not listed")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("problems", nargs="*", help="problem stems (default: all)")
    ap.add_argument("--no-oracle", action="store_true", help="skip the oracle contract check")
    ap.add_argument("--no-inline", action="store_true", help="skip compat_inline_*.py")
    opts = ap.parse_args()
    torch.set_num_threads(max(1, os.cpu_count() or 1))

    stems = opts.problems or sorted(
        d for d in os.listdir(CANDIDATES) if os.path.exists(os.path.join(HERE, d + ".py")))
    surprises = []
    oracle = {} if opts.no_oracle else oracle_contracts(stems)
    tmp = tempfile.TemporaryDirectory(prefix="hone_check_candidates_")
    workdir = tmp.name
    rows = []
    for stem in stems:
        problem = Problem(stem)
        ins, outs = problem.contract()
        print(f"{stem}: inputs " + ", ".join(f"{n}:{d}{s}" for n, d, s in ins) +
              " -> " + ", ".join(f"{n}:{d}{s}" for n, d, s in outs))
        if not opts.no_oracle:
            got = oracle.get(stem)
            if got != (ins, outs):
                surprises.append(f"{stem}: oracle contract differs: {got}")
        for cand in candidate_files(stem):
            if is_gpu(cand):
                continue
            if opts.no_inline and cand.startswith("compat_inline"):
                continue
            path = os.path.join(CANDIDATES, stem, cand)
            want = not os.path.splitext(cand)[0].endswith("wrong")
            note = ""
            try:
                got = run_native(problem, compile_native(path, workdir)) if cand.endswith(
                    ".cpp") else run_compat(problem, path)
                match, max_err, err, bound = compare(problem, got)
            except Exception as e:  # a crash or a bad return code is a mismatch, with a reason
                match, max_err, err, bound = False, float("nan"), float("nan"), 0.0
                note = f"{type(e).__name__}: {e}"
            precise = err <= bound
            ok = match == want and (not want or precise)
            if not ok:
                surprises.append(f"{stem}/{cand}: expected {'match' if want else 'mismatch'}, "
                                 f"got {'match' if match else 'mismatch'}"
                                 + ("" if precise or not want or note else " (imprecise)")
                                 + (f" ({note})" if note else ""))
            rows.append((stem, cand, "match" if want else "mismatch",
                         "match" if match else "mismatch", max_err, err, bound,
                         "ok" if ok else "SURPRISE", note))

    print()
    head = ("problem", "candidate", "expected", "got", "max_abs_err", "rel_l2_f64", "prec_bound",
            "verdict")
    fmt = "{:<24} {:<30} {:<9} {:<9} {:>11} {:>10} {:>10} {:<8}"
    print(fmt.format(*head))
    for stem, cand, want, got, max_err, err, bound, verdict, note in rows:
        print(fmt.format(stem, cand, want, got, f"{max_err:.2e}", f"{err:.2e}", f"{bound:.2e}",
                         verdict) + (f"  {note}" if note else ""))

    surprises += check_expectation_files(stems)
    print()
    if surprises:
        print(f"{len(surprises)} surprise(s):")
        for s in surprises:
            print("  " + s)
        return 1
    print(f"all {len(rows)} CPU candidates behaved as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
