"""One loaded problem of the oracle (hone_oracle.py): `Problem` builds a
KernelBench file (`Model`, `get_inputs`, `get_init_inputs`) once under its
model seed at a shape scale, fixes the candidate contract by a first run
(inputs, state_dict() entries, outputs, peak device memory, FLOPs), draws
the inputs of a (seed, distribution), runs the reference and its float64
copy, and moves between the device and host memory.

torch is this module's global `torch`, set by hone_oracle.main(); of
hone's it imports the tensor helpers (hone_oracle_tensors.py), the source
and seeding helpers (hone_oracle_source.py) and the distributions and task
info (hone_oracle_dists.py).
"""

import ast
import copy
import hashlib
import inspect
import json
import math
import types

import hone_oracle_flops
from hone_oracle_dists import parse_distributions, parse_task_info
from hone_oracle_source import (
    _flatten,
    _out_of_memory,
    _seed_all,
    derived_seed,
    scale_source,
    to_contract_tensor,
)
from hone_oracle_tensors import OracleError, _needs_sign, _scaled, _signed, hone_dtype
from hone_oracle_trace import step

torch = None  # set by hone_oracle.main(), which imports it
# The folder where FLOP counts are kept between processes (hone_oracle.py's
# --cache-dir); None: counted in every process.
FLOPS_CACHE = None


def _nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


class Problem:
    def __init__(self, pid, path, source, scale, policy, model_seed, device):
        self.id, self.path, self.source = pid, path, source
        self.scale, self.policy, self.model_seed = scale, policy, model_seed
        self.device = device
        self.task_hash = hashlib.sha256(
            source + json.dumps({"scale": scale, "model_seed": model_seed}).encode()
        ).hexdigest()
        self.mod = self.model = self.state = self.model64 = None
        # torch.device as a context manager (a default device) exists from torch 2.0.
        self.draw_on_device = hasattr(torch.device(device), "__enter__")
        self.memory = {}
        self.uses_rng = False
        self.sizes, self.unscaled, self.derived = {}, {}, {}

    # -- building ------------------------------------------------------------

    def build(self):
        tree = ast.parse(self.source, filename=self.path)
        self.sizes, self.unscaled = scale_source(tree, self.scale)
        code = compile(tree, self.path, "exec")
        mod = types.ModuleType(f"hone_problem_{self.id}")
        mod.__file__ = self.path
        exec(code, mod.__dict__)
        step("problem module run")
        for need in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(mod, need):
                raise OracleError(
                    f"{self.path}: no {need} (KernelBench format needs Model, "
                    f"get_inputs and get_init_inputs)"
                )
        self.mod = mod
        self.derived = {
            k: v
            for k, v in vars(mod).items()
            if isinstance(v, int)
            and not isinstance(v, bool)
            and not k.startswith("_")
            and k not in self.sizes
            and k not in self.unscaled
        }
        self.distributions = parse_distributions(mod, self.path)
        self.task_info = parse_task_info(mod, self.path)
        _seed_all(self.model_seed)
        init = mod.get_init_inputs()
        _seed_all(self.model_seed)
        model = self._make_model(mod.Model, init)
        if not isinstance(model, torch.nn.Module):
            raise OracleError(f"{self.path}: Model is not a torch.nn.Module")
        self.model = model.to(self.device)
        self.params = [(k, v) for k, v in self.model.state_dict().items() if torch.is_tensor(v)]
        buffers = {k for k, _ in self.model.named_buffers()}
        self.param_kind = {k: ("buffer" if k in buffers else "parameter") for k, _ in self.params}
        self.state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        step("model built on the device")
        # The contract is fixed by a first run: seed 0, distribution 0. Its
        # peak device memory tells the worker's memory plan what one forward
        # needs beyond its inputs.
        args = self._measured_draws()
        step("value sets drawn, one per distribution")
        outs = self._measured_forward(args)
        step("first forward, its memory measured")
        self.arg_names = self._arg_names(len(args))
        self.contract_inputs = []
        for i, a in enumerate(args):
            t = to_contract_tensor(a, f"forward argument {i} ('{self.arg_names[i]}')")
            d = {
                "index": i,
                "name": self.arg_names[i],
                "role": "input",
                "kind": "forward_arg",
                "dtype": hone_dtype(t.dtype, f"input '{self.arg_names[i]}'"),
                "shape": list(t.shape),
            }
            if not torch.is_tensor(a):
                d["python_type"] = type(a).__name__
                d["value"] = a
            self.contract_inputs.append(d)
        for j, (k, v) in enumerate(self.params):
            self.contract_inputs.append(
                {
                    "index": len(args) + j,
                    "name": k,
                    "role": "param",
                    "kind": self.param_kind[k],
                    "dtype": hone_dtype(v.dtype, f"state_dict entry '{k}'"),
                    "shape": list(v.shape),
                }
            )
        named = self.task_info.get("outputs", [])
        self.output_names = (
            [str(x) for x in named]
            if len(named) == len(outs)
            else ["out"]
            if len(outs) == 1
            else [f"out{i}" for i in range(len(outs))]
        )
        self.contract_outputs = [
            {
                "index": i,
                "name": self.output_names[i],
                "role": "output",
                "dtype": hone_dtype(o.dtype, f"output {i}"),
                "shape": list(o.shape),
            }
            for i, o in enumerate(outs)
        ]
        self.footprint = (
            _nbytes([to_contract_tensor(a, "") for a in args])
            + _nbytes([v for _, v in self.params])
            + _nbytes(outs)
        )
        self._check_signed(args, outs)
        step("signed distribution checked")
        self._mark_constant_numbers(args)
        self.flops = self._count_flops(args)
        step("floating-point operations counted")

    def _check_signed(self, args, outs):
        """Leaves out the `signed` distribution where it says nothing (no input
        to sign) or is not valid for the operator: the reference raises on
        signed inputs, or its outputs are not finite where get_inputs()'s
        are (a logarithm, a square root, probabilities). Why goes into
        `distributions_left_out`."""
        self.left_out = []
        at = next((d.index for d in self.distributions if d.name == "signed"), None)
        if at is None:
            return
        why = None
        if not any(self._needs_sign(a) for a in args):
            why = "no floating input holds only non-negative values"
        else:
            try:
                signed = self.inputs(0, at)
                finite = all(bool(torch.isfinite(o).all()) for o in outs if o.is_floating_point())
                if finite and not all(
                    bool(torch.isfinite(o).all())
                    for o in self.forward(signed, clone=False)
                    if o.is_floating_point()
                ):
                    why = "the reference's outputs are not finite on signed inputs"
                del signed
            except Exception as e:  # the operator refuses negative values
                why = f"the reference raised on signed inputs ({type(e).__name__}: {e})"[:300]
        if why is None:
            return
        self.left_out.append({"name": "signed", "why": why})
        self.distributions = [d for d in self.distributions if d.name != "signed"]
        for i, d in enumerate(self.distributions):
            d.index = i

    def _rng_states(self):
        states = [torch.get_rng_state()]
        if self.device.startswith("cuda"):
            states.append(torch.cuda.get_rng_state(torch.device(self.device)))
        return states

    def _measured_forward(self, args):
        """The first forward, measured: its memory, and whether it draws
        random numbers (training-mode dropout): then hone seeds every call
        of a candidate as this oracle seeds the forward its expected outputs
        come from."""
        _seed_all(0)
        before = self._rng_states()
        outs = self._forward_measuring_memory(args)
        self.uses_rng = any(not torch.equal(a, b) for a, b in zip(before, self._rng_states()))
        return outs

    def _forward_measuring_memory(self, args):
        if not self.device.startswith("cuda"):
            return self.forward(args)
        dev = torch.device(self.device)
        torch.cuda.synchronize(dev)
        torch.cuda.reset_peak_memory_stats(dev)
        before = torch.cuda.memory_allocated(dev)
        outs = self.forward(args, clone=False)
        torch.cuda.synchronize(dev)
        free, total = torch.cuda.mem_get_info(dev)
        self.memory.update(
            {
                "forward_peak_bytes": int(torch.cuda.max_memory_allocated(dev) - before),
                "model_bytes": self.model_bytes(),
                "device_free_bytes": int(free),
                "device_total_bytes": int(total),
            }
        )
        return outs

    def model_bytes(self):
        """The model's state: its parameters and buffers."""
        return int(_nbytes([v for v in self.state.values() if torch.is_tensor(v)]))

    def _mark_constant_numbers(self, args):
        """A Python number forward argument is `constant` when every seed and
        distribution gives the same value (the usual case: an alpha fixed in
        get_inputs). Compat candidates on CUDA receive it as a number, which
        they could not read from device memory without a synchronisation."""
        numbers = [i for i, a in enumerate(args) if not torch.is_tensor(a)]
        if not numbers:
            return
        others = [self.inputs(1, 0)] + [
            self.inputs(0, d) for d in range(1, len(self.distributions))
        ]
        for i in numbers:
            self.contract_inputs[i]["constant"] = all(o[i] == args[i] for o in others)

    def _count_flops(self, args):
        """Floating-point operations of one forward (_counted_flops), kept in
        FLOPS_CACHE between processes (hone_oracle_flops.py)."""
        path = hone_oracle_flops.cache_file(FLOPS_CACHE, self.task_hash, self.device)
        if path is not None:
            kept = hone_oracle_flops.read(path)
            if kept is not hone_oracle_flops.NOT_KEPT:
                return kept
        flops, keep = self._counted_flops(args)
        if path is not None and keep:
            hone_oracle_flops.keep(path, flops, self.path)
        return flops

    def _counted_flops(self, args):
        """Floating-point operations of one forward, counted by torch's
        FlopCounterMode (matmuls and convolutions; torch 2.1 and later), or
        None where it is unavailable; and whether the answer may be kept (a
        count that failed, out of memory on a busy GPU say, is not)."""
        try:
            from torch.utils.flop_counter import FlopCounterMode
        except ImportError:
            return None, True
        dev = [a.to(self.device) if torch.is_tensor(a) else a for a in args]
        try:
            counter = FlopCounterMode(display=False)
            with counter, torch.no_grad():
                self.model(*dev)
            return int(counter.get_total_flops()), True
        except Exception:  # a counter failure only loses the speed-of-light floor
            return None, False
        finally:
            self._restore(self.model)

    def _arg_names(self, n):
        named = self.task_info.get("inputs", [])
        if len(named) == n:
            return [str(x) for x in named]
        names = []
        try:
            sig = inspect.signature(self.model.forward)
            for p in sig.parameters.values():
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    names.append(p.name)
        except (TypeError, ValueError):
            pass
        return [names[i] if i < len(names) else f"arg{i}" for i in range(n)]

    # -- inputs and outputs --------------------------------------------------

    def inputs(self, seed, dist_index):
        if not 0 <= dist_index < len(self.distributions):
            raise OracleError(
                f"{self.path}: no distribution {dist_index} "
                f"(the problem has {len(self.distributions)})"
            )
        d = self.distributions[dist_index]
        s = seed if dist_index == 0 else derived_seed(seed, dist_index)
        args = self._draw(lambda: d.fn(seed) if d.fn is not None else self.mod.get_inputs(), s)
        if not isinstance(args, (list, tuple)):
            raise OracleError(
                f"{self.path}: distribution '{d.name}' returned a "
                f"{type(args).__name__}, not a list"
            )
        args = list(args)
        if d.name == "scaled":
            g = torch.Generator().manual_seed(derived_seed(seed, 1000 + dist_index))
            for i in range(len(args)):
                if torch.is_tensor(args[i]) and args[i].is_floating_point():
                    u = self._uniform(g)
                    factor = math.exp(math.log(0.5) + u * (math.log(4.0) - math.log(0.5)))
                    args[i] = _scaled(args, i, factor)
        elif d.name == "signed":
            g = torch.Generator().manual_seed(derived_seed(seed, 1000 + dist_index))
            for i in range(len(args)):
                if self._needs_sign(args[i]):
                    args[i] = _signed(args, i, g)
        if self.model is not None and hasattr(self, "contract_inputs"):
            self._check_like_contract(args, d)
        return args

    def _make_model(self, model_class, init):
        return model_class(*init)

    # The two decisions of drawing that read values; an estimate has none.
    def _uniform(self, g):
        """A draw from [0, 1) by `g`: how far a `scaled` set is scaled."""
        return torch.rand((), generator=g, dtype=torch.float64).item()

    def _needs_sign(self, t):
        return _needs_sign(t)

    def scaled_inputs(self, seed, dist_index, scale):
        """inputs(seed, dist_index) with every floating tensor argument
        multiplied by `scale` afterwards, in the tensor's dtype, as the
        worker scales a timed call's inputs: the worker's timing pool holds
        sets that are exact multiples of others, so a candidate cannot tell
        a checked call from an unchecked one by its inputs being a multiple
        of a set it has seen."""
        args = self.inputs(seed, dist_index)
        if scale != 1:
            for i in range(len(args)):
                if torch.is_tensor(args[i]) and args[i].is_floating_point():
                    args[i] = _scaled(args, i, scale)
        return args

    def _measured_draws(self):
        """The contract's inputs (seed 0, distribution 0), and the most device
        memory any distribution's draw takes (its inputs and whatever
        get_inputs() made on the way): the oracle draws a value set beside
        the worker's, so the memory plan counts it."""
        if not self.device.startswith("cuda"):
            return self.inputs(0, 0)
        dev = torch.device(self.device)
        peak = 0
        args = None
        for d in range(len(self.distributions)):
            torch.cuda.synchronize(dev)
            torch.cuda.reset_peak_memory_stats(dev)
            before = torch.cuda.memory_allocated(dev)
            drawn = self.inputs(0, d)
            torch.cuda.synchronize(dev)
            peak = max(peak, int(torch.cuda.max_memory_allocated(dev) - before))
            if d == 0:
                args = drawn
            del drawn
        self.memory["draw_peak_bytes"] = peak
        return args

    def _draw(self, make, seed):
        """get_inputs() (or a distribution) under the seed, made on the
        problem's device: a full-size KernelBench input (6.4 GB) takes
        seconds to draw on the CPU and milliseconds on the GPU. A problem
        whose get_inputs() does not run under a default device is drawn on
        the CPU, as KernelBench does."""
        if self.device.startswith("cuda") and self.draw_on_device:
            try:
                _seed_all(seed)
                with torch.device(self.device):
                    return make()
            except Exception as e:
                # Out of device memory says nothing of where get_inputs()
                # can run: this draw goes to the CPU, the next tries the
                # device again.
                if not _out_of_memory(e):
                    self.draw_on_device = False
        _seed_all(seed)
        return make()

    def _check_like_contract(self, args, d):
        n = len(self.arg_names)
        if len(args) != n:
            raise OracleError(
                f"{self.path}: distribution '{d.name}' gave {len(args)} "
                f"inputs, get_inputs() gives {n}"
            )
        for i, a in enumerate(args):
            t = to_contract_tensor(a, f"input {i}")
            c = self.contract_inputs[i]
            if list(t.shape) != c["shape"] or hone_dtype(t.dtype, "") != c["dtype"]:
                raise OracleError(
                    f"{self.path}: distribution '{d.name}' input {i} is "
                    f"{hone_dtype(t.dtype, '')}{list(t.shape)}, the contract says "
                    f"{c['dtype']}{c['shape']}"
                )

    def move_to(self, where):
        """Moves the model and its state snapshot (parks them in host memory
        with where="cpu", brings them back with the problem's device); the
        float64 copy is dropped and rebuilt when next needed."""
        if self.model is None or not self.device.startswith("cuda"):
            return
        self.model.to(where)
        self.state = {k: (v.to(where) if torch.is_tensor(v) else v) for k, v in self.state.items()}
        # state_dict() tensors taken at build time would keep the old copies alive.
        self.params = [(k, self.state[k]) for k, _ in self.params]
        self.model64 = None

    def _restore(self, model, double=False):
        with torch.no_grad():
            sd = {
                k: (v.double() if double and v.is_floating_point() else v)
                for k, v in self.state.items()
            }
            model.load_state_dict(sd)

    def forward(self, args, seed=0, clone=True):
        """The model's outputs. `clone`: run on copies, so an in-place forward
        leaves `args` as they were (not needed once they were written out)."""
        self._restore(self.model)
        dev = [
            (a.to(self.device).clone() if clone else a.to(self.device)) if torch.is_tensor(a) else a
            for a in args
        ]
        _seed_all(seed)
        with torch.no_grad():
            out = self.model(*dev)
        self._restore(self.model)  # train-mode BatchNorm must not drift
        return [o.detach() for o in _flatten(out, "the model's output")]

    def forward64(self, args, seed=0, widened=False):
        """The float64 model's outputs; `widened`: args are already float64
        copies on the device (no second copy)."""
        if self.model64 is None:
            self.model64 = copy.deepcopy(self.model).double()
        self._restore(self.model64, double=True)
        dev = []
        for a in args:
            if torch.is_tensor(a) and not widened:
                a = a.to(self.device)
                dev.append(a.double() if a.is_floating_point() else a.clone())
            else:
                dev.append(a)
        _seed_all(seed)
        with torch.no_grad():
            out = self.model64(*dev)
        self._restore(self.model64, double=True)
        # Floating outputs are always f64, even where the model casts its result.
        return [
            o.detach().double() if o.is_floating_point() else o.detach()
            for o in _flatten(out, "the float64 model's output")
        ]

    # -- replies -------------------------------------------------------------

    def summary(self):
        return {
            "problem": self.id,
            "path": self.path,
            "task_hash": self.task_hash,
            "scale": self.scale,
            "policy": self.policy,
            "sizes": self.sizes,
            "derived_sizes": self.derived,
        }

    def load_reply(self):
        r = {"ok": True, "status": "loaded"}
        r.update(self.summary())
        r.update(
            {
                "unscaled": self.unscaled,
                "device": self.device,
                "model_seed": self.model_seed,
                "inputs": self.contract_inputs,
                "outputs": self.contract_outputs,
                "distributions": [d.describe() for d in self.distributions],
                "distributions_left_out": getattr(self, "left_out", []),
                "footprint_bytes": self.footprint,
                "cost": {"bytes": self.footprint, "flops": self.flops},
                "memory": self.memory,
                "uses_rng": self.uses_rng,
                "task": self.task_info,
                "torch": torch.__version__,
            }
        )
        return r
