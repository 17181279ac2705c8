#!/usr/bin/env python3
"""hone's oracle: the one Python component (docs/ORACLE.md).

A long-lived process, one per device, started by hone's trusted worker. It
loads PyTorch-defined problems (KernelBench format), builds each model once
under a fixed seed, and for a (seed, value distribution) produces the
forward arguments, the state_dict() tensors, the expected outputs and a
float64 reference: on a GPU straight into the worker's device buffers
(CUDA IPC), on the CPU into raw files the worker reads. It also writes out
ModelNew files' load_inline extensions for hone to build. It never times
anything: baselines are timed by hone's sandbox, like candidates.

Protocol: one JSON request per line on stdin, one JSON reply per line on
stdout. Logs go to stderr; anything a problem prints goes to stderr too.
Every failure is a reply {"ok": false, "error": ...}; the oracle never exits
on a bad request or a bad problem.

`python3 hone_oracle.py --check` prints the torch version and exits 0, or
explains that torch is missing and exits 3.

Its parts, one module per concept, lie beside it: hone_oracle_tensors.py
(dtypes, the tensor writer, the worker's device buffers),
hone_oracle_source.py (shape scaling of a problem's source, exceptions
described, seeds), hone_oracle_dists.py (value distributions and a problem's
hone_task), hone_oracle_problem.py (a loaded `Problem`) and
hone_oracle_runtime.py (the interpreter, its bytecode folder, `--runtime`).
"""

import hashlib
import json
import math
import os
import platform
import re
import sys
import time
import traceback

import hone_oracle_estimate
import hone_oracle_flops
import hone_oracle_problem
import hone_oracle_runtime
import hone_oracle_source
import hone_oracle_tensors
import hone_oracle_trace
from hone_oracle_dists import parse_task_info  # noqa: F401  (hone_oracle.parse_task_info)
from hone_oracle_estimate import EstimatedProblem
from hone_oracle_problem import Problem
from hone_oracle_runtime import (
    EXIT_NO_TORCH,
    device_name,
    print_runtime,
    python_runtime,
    use_bytecode_dir,
)
from hone_oracle_source import POLICIES, Skip, _skip_reason, describe_exception, to_contract_tensor
from hone_oracle_tensors import (
    _TORCH_DTYPE,
    DeviceTargets,
    OracleError,
    release_device_memory,
    write_tensor,
)

ORACLE_PROTOCOL_VERSION = 1
MODEL_SEED = 0  # default seed the model (and get_init_inputs) is built under

torch = None  # imported in main() so that --check can report its absence
# The parts that use torch as their own global, given it by main() too.
TORCH_MODULES = (
    hone_oracle_tensors,
    hone_oracle_source,
    hone_oracle_problem,
    hone_oracle_flops,
    hone_oracle_estimate,
    hone_oracle_runtime,
)


# ---------------------------------------------------------------------------
# the server


class Oracle:
    # Problems whose models stay on the device; the others are parked in host
    # memory. A suite of 250 full-size problems would otherwise keep every
    # model (and its float64 copy) on the GPU the candidates are timed on.
    ACTIVE_PROBLEMS = 2

    def __init__(self, device):
        self.device = device
        self.problems = {}  # id -> Problem
        self.by_key = {}  # (path, source hash, scale, seed) -> id
        self.next_id = 1
        self.active = []  # ids of problems on the device, least recently used first

    def _activate(self, p):
        if p.id in self.active:
            self.active.remove(p.id)
        else:
            p.move_to(p.device)
        self.active.append(p.id)
        while len(self.active) > self.ACTIVE_PROBLEMS:
            old = self.problems.get(self.active.pop(0))
            if old is not None:
                old.move_to("cpu")
                release_device_memory(old.device)

    # -- requests ------------------------------------------------------------

    def handle(self, req):
        op = req.get("op")
        fn = {
            "hello": self.hello,
            "load": self.load,
            "generate": self.generate,
            "distributions": self.distributions,
            "prepare_extension": prepare_extension,
            "release": self.release,
        }.get(op)
        if fn is None:
            raise OracleError(
                f"unknown op {op!r} (hello, load, distributions, generate, "
                f"prepare_extension, release, exit)"
            )
        return fn(req)

    def hello(self, req):
        devices = [{"name": "cpu", "description": device_name("cpu")}]
        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                devices.append({"name": f"cuda:{i}", "description": device_name(f"cuda:{i}")})
        return {
            "ok": True,
            "protocol": ORACLE_PROTOCOL_VERSION,
            "torch": torch.__version__,
            "python": platform.python_version(),
            "executable": sys.executable,
            "device": self.device,
            "devices": devices,
            "compile_available": hasattr(torch, "compile"),
            "runtime": python_runtime(),
            "policies": {k: v for k, v in POLICIES.items()},
        }

    def load(self, req):
        path = req.get("path")
        if not isinstance(path, str):
            raise OracleError("load needs 'path'")
        path = os.path.abspath(path)
        if os.path.isdir(path):
            names = sorted(
                (n for n in os.listdir(path) if n.endswith(".py") and not n.startswith("_")),
                key=lambda n: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", n)],
            )
            out = []
            for n in names:
                sub = dict(req, path=os.path.join(path, n))
                try:
                    out.append(self.load(sub))
                except Exception as e:  # one bad file never stops the folder
                    out.append({"ok": False, "path": sub["path"], "error": str(e)})
            return {"ok": True, "status": "folder", "path": path, "problems": out}
        try:
            with open(path, "rb") as f:
                source = f.read()
        except OSError as e:
            raise OracleError(f"{path}: cannot read: {e.strerror}")
        model_seed = int(req.get("model_seed", MODEL_SEED))
        device = req.get("device", self.device)
        policy = req.get("policy")
        if policy is not None and policy not in POLICIES:
            raise OracleError(f"unknown policy '{policy}' (known: {', '.join(POLICIES)})")
        if policy is not None and req.get("shape_scale") is not None:
            raise OracleError("give shape_scale or policy, not both")
        # "estimate": built without running it (hone_oracle_estimate.py), not kept.
        make = EstimatedProblem if req.get("estimate") else Problem
        try:
            if policy is not None:
                return self._load_policy(
                    path, source, policy, model_seed, device, make
                ).load_reply()
            scale = float(req.get("shape_scale", 1.0))
            if not 0 < scale <= 1:
                raise OracleError(f"shape_scale must be in (0, 1], got {scale}")
            return self._load_scaled(
                path, source, scale, None, model_seed, device, make
            ).load_reply()
        except Skip as s:
            return {"ok": True, "status": "skipped", "path": path, "reason": str(s)}

    def _build(self, path, source, scale, policy, model_seed, device, make=Problem):
        key = (path, hashlib.sha256(source).hexdigest(), scale, model_seed, device)
        if key in self.by_key and make is Problem:
            p = self.problems[self.by_key[key]]
            p.policy = policy
            return p
        p = make(f"p{self.next_id}", path, source, scale, policy, model_seed, device)
        try:
            try:
                p.build()
            finally:
                release_device_memory(device)
                hone_oracle_trace.step("device memory released")
        except (OracleError, Skip):
            raise
        except BaseException as e:  # the problem's own code failed
            if isinstance(e, KeyboardInterrupt):
                raise
            reason = _skip_reason(e, path)
            if reason:
                raise Skip(reason)
            raise ProblemFailure(describe_exception(e, path))
        if make is not Problem:  # an estimate generates nothing: never kept
            return p
        self.next_id += 1
        self.problems[p.id] = p
        self.by_key[key] = p.id
        self._activate(p)
        return p

    def _load_scaled(self, path, source, scale, policy, model_seed, device, make=Problem):
        """Loads at `scale`. When a scaled problem fails to run, retries twice
        with a gentler scale (the square root of the factor); a problem that
        fails the same way at every scale is broken (an error), one that fails
        differently is skipped with every reason."""
        tried = []
        for _ in range(3):
            try:
                return self._build(path, source, scale, policy, model_seed, device, make)
            except ProblemFailure as e:
                tried.append((scale, str(e)))
                if scale >= 1.0:
                    break
                scale = math.sqrt(scale)
                scale = 1.0 if scale > 0.99 else float(f"{scale:.3g}")
        if len({msg for _, msg in tried}) == 1:
            raise OracleError(tried[0][1])
        raise Skip(
            "fails at every scale tried: " + "; ".join(f"scale {s:g}: {m}" for s, m in tried)
        )

    def _load_policy(self, path, source, policy, model_seed, device, make=Problem):
        budget = POLICIES[policy]
        if budget is None:
            return self._load_scaled(path, source, 1.0, policy, model_seed, device, make)
        # Probe the footprint at two small scales, fit bytes ~ c * scale^k,
        # and pick the largest scale the budget allows.
        a = self._load_scaled(path, source, 1 / 64, policy, model_seed, device, make)
        b = self._load_scaled(path, source, 1 / 16, policy, model_seed, device, make)
        fa, fb = max(a.footprint, 1), max(b.footprint, 1)
        if b.scale <= a.scale or fb <= fa:
            k = 0.0
        else:
            k = math.log(fb / fa) / math.log(b.scale / a.scale)
        if fb > budget:
            scale = b.scale * (budget / fb) ** (1 / k) if k > 0 else b.scale
        else:
            scale = 1.0 if k <= 0 else min(1.0, b.scale * (budget / fb) ** (1 / k))
        scale = max(float(f"{scale:.3g}"), 1e-4)
        p = self._load_scaled(path, source, min(scale, 1.0), policy, model_seed, device, make)
        probes, prev = [a, b], b
        # Secant refinement: too big shrinks, far under budget grows (rounded
        # sizes make the power law inexact at small scales).
        for _ in range(4):
            too_big = p.footprint > budget * 1.25
            too_small = p.footprint < budget / 4 and p.scale < 1.0
            if not (too_big or too_small) or p.scale <= 1e-4:
                break
            if p.scale != prev.scale and p.footprint != prev.footprint and p.footprint > 0:
                k2 = math.log(p.footprint / max(prev.footprint, 1)) / math.log(p.scale / prev.scale)
                k = k2 if k2 > 0 else k
            step = (budget / max(p.footprint, 1)) ** (1 / k) if k > 0 else (0.5 if too_big else 2.0)
            step = min(step, 0.9) if too_big else max(step, 1.1)
            nxt = min(1.0, float(f"{p.scale * step:.3g}"))
            if nxt == p.scale:
                break
            probes.append(p)
            prev, p = p, self._load_scaled(path, source, nxt, policy, model_seed, device, make)
            if too_small and p.footprint > budget * 1.25:  # overshot: keep the last that fit
                probes.append(p)
                p = prev
                break
        for probe in probes:  # the probes are not kept
            if probe is not p and probe.id in self.problems:
                del self.problems[probe.id]
                self.by_key = {k: v for k, v in self.by_key.items() if v != probe.id}
        return p

    def _problem(self, req):
        pid = req.get("problem")
        if pid not in self.problems:
            raise OracleError(f"unknown problem {pid!r}; load it first")
        p = self.problems[pid]
        self._activate(p)
        return p

    def distributions(self, req):
        p = self._problem(req)
        r = {"ok": True}
        r.update(p.summary())
        r["distributions"] = [d.describe() for d in p.distributions]
        return r

    def release(self, req):
        """Cached device memory back to the driver, for a memory plan that
        found too little free."""
        release_device_memory(self.device)
        return {"ok": True}

    def generate(self, req):
        p = self._problem(req)
        seed = int(req.get("seed", 0))
        dist = int(req.get("distribution", 0))
        scale = float(req.get("scale", 1))
        if isinstance(req.get("targets"), dict):
            try:
                return self._generate_into(p, seed, dist, req["targets"], scale)
            finally:
                # Kept only while the worker's memory plan has room for it
                # (its verify stage): re-allocating gigabytes per set is slow.
                if not req.get("keep_cache"):
                    release_device_memory(p.device)
        out_dir = req.get("out_dir")
        if not isinstance(out_dir, str):
            raise OracleError("generate needs 'out_dir' or 'targets'")
        os.makedirs(out_dir, exist_ok=True)
        try:
            args = p.scaled_inputs(seed, dist, scale)
            outs = p.forward(args, seed)
        except (OracleError, Skip) as e:
            raise OracleError(str(e))
        except Exception as e:
            raise OracleError(describe_exception(e, p.path))
        tensors = []
        for i, a in enumerate(args):
            t = to_contract_tensor(a, f"input {i}")
            tensors.append(write_tensor(out_dir, i, "input", p.arg_names[i], t))
        for j, (k, _) in enumerate(p.params):
            tensors.append(write_tensor(out_dir, len(args) + j, "param", k, p.state[k]))
        if [list(o.shape) for o in outs] != [c["shape"] for c in p.contract_outputs]:
            raise OracleError(
                f"{p.path}: output shapes {[list(o.shape) for o in outs]} differ "
                f"from the contract's {[c['shape'] for c in p.contract_outputs]}"
            )
        for i, o in enumerate(outs):
            tensors.append(write_tensor(out_dir, i, "output", p.output_names[i], o))
        ref64 = {"available": True}
        try:
            start = time.perf_counter()
            outs64 = p.forward64(args, seed)
            for i, o in enumerate(outs64):
                tensors.append(write_tensor(out_dir, i, "ref64_output", p.output_names[i], o))
            ref64["seconds"] = time.perf_counter() - start
        except Exception as e:
            ref64 = {"available": False, "reason": describe_exception(e, p.path)}
        r = {"ok": True}
        r.update(p.summary())
        r.update(
            {
                "seed": seed,
                "distribution": dist,
                "distribution_name": p.distributions[dist].name,
                "out_dir": os.path.abspath(out_dir),
                "tensors": tensors,
                "ref64": ref64,
            }
        )
        return r

    def _generate_into(self, p, seed, dist, targets, scale=1):
        """generate into the worker's device buffers (DeviceTargets): the
        inputs and parameters first, then the expected outputs, then, when
        `targets` has "ref64", the float64 reference, which is computed from
        the inputs already written (so the float32 inputs need not stay
        alive beside their float64 copies)."""
        want = {k: targets.get(k) for k in ("inputs", "outputs", "ref64")}
        n_in, n_out = len(p.contract_inputs), len(p.contract_outputs)
        if (
            not isinstance(want["inputs"], list)
            or len(want["inputs"]) != n_in
            or not isinstance(want["outputs"], list)
            or len(want["outputs"]) != n_out
            or (
                want["ref64"] is not None
                and (not isinstance(want["ref64"], list) or len(want["ref64"]) != n_out)
            )
        ):
            raise OracleError(
                f"generate: targets need {n_in} inputs, {n_out} outputs and "
                f"optionally {n_out} ref64 outputs"
            )
        sink = DeviceTargets(p.device)
        try:
            try:
                args = p.scaled_inputs(seed, dist, scale)
            except (OracleError, Skip) as e:
                raise OracleError(str(e))
            except Exception as e:
                raise OracleError(describe_exception(e, p.path))
            for i, a in enumerate(args):
                sink.write(want["inputs"][i], to_contract_tensor(a, f"input {i}"), f"input {i}")
            for j, (k, _) in enumerate(p.params):
                sink.write(want["inputs"][len(args) + j], p.state[k], f"state_dict entry '{k}'")
            try:
                outs = p.forward(args, seed, clone=False)
            except Exception as e:
                raise OracleError(describe_exception(e, p.path))
            del args
            if [list(o.shape) for o in outs] != [c["shape"] for c in p.contract_outputs]:
                raise OracleError(
                    f"{p.path}: output shapes {[list(o.shape) for o in outs]} "
                    f"differ from the contract's "
                    f"{[c['shape'] for c in p.contract_outputs]}"
                )
            for i, o in enumerate(outs):
                sink.write(want["outputs"][i], o, f"output {i}")
            del outs
            ref64 = {"available": False, "reason": "not asked for"}
            if want["ref64"] is not None:
                ref64 = self._ref64_into(p, seed, dist, sink, want)
        finally:
            sink.close()
        r = {"ok": True}
        r.update(p.summary())
        r.update(
            {
                "seed": seed,
                "distribution": dist,
                "distribution_name": p.distributions[dist].name,
                "ref64": ref64,
            }
        )
        return r

    def _ref64_into(self, p, seed, dist, sink, want):
        """The float64 reference of the inputs the worker now holds."""
        try:
            numbers = None
            args = []
            for i, c in enumerate(p.contract_inputs[: len(p.arg_names)]):
                if "python_type" in c:
                    if c.get("constant"):
                        args.append(c["value"])
                    else:  # rare: a number that varies with the seed; draw it again
                        numbers = numbers or p.inputs(seed, dist)
                        args.append(numbers[i])
                    continue
                dtype = getattr(torch, _TORCH_DTYPE[c["dtype"]])
                raw = sink.view(want["inputs"][i])
                t = (
                    raw.view(dtype).reshape(c["shape"])
                    if raw.numel()
                    else torch.empty(c["shape"], dtype=dtype, device=p.device)
                )
                # A copy: the forward may write into its inputs.
                args.append(t.double() if t.is_floating_point() else t.clone())
            start = time.perf_counter()
            outs64 = p.forward64(args, seed, widened=True)
            del args
            for i, o in enumerate(outs64):
                sink.write(want["ref64"][i], o, f"float64 output {i}")
            # The forward and the copies out, run to their end: on a GPU they
            # are only queued when the calls return (level1/68's 2.8 s float64
            # forward read as milliseconds). The worker checks float64
            # precision on fewer value sets when this is slow.
            sink.synchronize()
            return {"available": True, "seconds": time.perf_counter() - start}
        except Exception as e:
            return {"available": False, "reason": describe_exception(e, p.path)}


def prepare_extension(req):
    """A ModelNew's load_inline/cpp_extension.load extension, written out
    with the exact build commands this torch would run, for hone to build
    outside the sandbox (python/hone_extbuild.py)."""
    try:
        import hone_extbuild
    except ImportError as e:
        raise OracleError(f"prepare_extension needs hone_extbuild.py beside the oracle ({e})")
    return hone_extbuild.oracle_request(req)


class ProblemFailure(Exception):
    """The problem's own code raised; the message names file and line."""


def serve(device):
    # Replies go to a private copy of stdout; fd 1 becomes stderr so that
    # whatever a problem prints (Python or C) cannot corrupt the protocol.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    oracle = Oracle(device)

    def reply(obj, req_id):
        if req_id is not None:
            obj["id"] = req_id
        proto.write(json.dumps(obj, allow_nan=False, default=str) + "\n")
        proto.flush()

    for line in sys.stdin:
        if not line.strip():
            continue
        req_id = None
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise OracleError("a request is a JSON object")
            req_id = req.get("id")
            if req.get("op") == "exit":
                reply({"ok": True, "op": "exit"}, req_id)
                return 0
            hone_oracle_trace.begin()
            r = oracle.handle(req)
            r.setdefault("op", req.get("op"))
            steps = hone_oracle_trace.take()
            if steps:
                r["trace"] = steps
            reply(r, req_id)
        except json.JSONDecodeError as e:
            reply({"ok": False, "error": f"malformed request: {e}"}, None)
        except KeyboardInterrupt:
            raise
        except (OracleError, ProblemFailure, Skip) as e:
            reply({"ok": False, "error": str(e)}, req_id)
        except BaseException as e:  # a bug or a problem's SystemExit: report, keep serving
            print(traceback.format_exc(), file=sys.stderr)
            reply({"ok": False, "error": f"internal error: {type(e).__name__}: {e}"}, req_id)
    return 0


def exit_with_worker():
    """A thread that ends the process the moment hone's end of stdin closes.
    hone ends its oracle itself when it ends normally; one killed outright
    (SIGKILL, the OOM killer) left it running until it next read a request,
    after an import or a baseline's timing of seconds to minutes, holding
    the GPU's memory. hone never half-closes the socket while it waits for
    a reply, so the peer's hang-up only ever means it is gone."""
    import select
    import threading

    def watch():
        poller = select.poll()
        poller.register(0, select.POLLRDHUP)
        while True:
            for _, events in poller.poll():
                if events & (select.POLLRDHUP | select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    os._exit(0)

    threading.Thread(target=watch, name="hone-exit-with-worker", daemon=True).start()


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description="hone's PyTorch oracle (docs/ORACLE.md)")
    ap.add_argument("--check", action="store_true", help="print the torch version and exit")
    ap.add_argument(
        "--runtime",
        action="store_true",
        help="print the interpreter's runtime as JSON without importing torch, and exit",
    )
    ap.add_argument(
        "--bytecode-dir",
        default=None,
        help="keep compiled Python bytecode here (sys.pycache_prefix)",
    )
    ap.add_argument(
        "--cache-dir",
        default=None,
        help="keep what is computed once per problem here between processes (FLOP counts)",
    )
    ap.add_argument("--device", default=None, help="cpu or cuda:N (default: cuda:0 if present)")
    ap.add_argument(
        "--exit-with-worker",
        action="store_true",
        help="exit the moment the other end of stdin (a socket) closes",
    )
    opts = ap.parse_args(argv)
    if opts.exit_with_worker:
        exit_with_worker()
    if opts.bytecode_dir:
        use_bytecode_dir(opts.bytecode_dir)
    if opts.runtime:
        return print_runtime()
    global torch
    try:
        import torch as _torch
        import numpy  # noqa: F401  (the tensor writer needs it)
    except Exception as e:  # ImportError, or a torch whose own libraries fail to load (OSError)
        print(
            f"hone oracle: {sys.executable} cannot import {getattr(e, 'name', None) or 'torch'} ({e}); "
            f"set HONE_PYTHON to a python3 with torch and numpy "
            f"(Debian: apt-get install python3-torch python3-numpy)",
            file=sys.stderr,
        )
        return EXIT_NO_TORCH
    torch = _torch
    for part in TORCH_MODULES:
        part.torch = _torch
    if opts.check:
        print(
            f"torch {torch.__version__} python {platform.python_version()} "
            f"cuda {'yes' if torch.cuda.is_available() else 'no'} {sys.executable}"
        )
        return 0
    hone_oracle_problem.FLOPS_CACHE = opts.cache_dir
    device = opts.device or ("cuda:0" if torch.cuda.is_available() else "cpu")
    return serve(device)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
