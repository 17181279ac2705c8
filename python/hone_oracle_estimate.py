"""A problem loaded without running it (`hone task memory`): its model built,
its inputs drawn and its forward run under torch's FakeTensorMode, where
every tensor has a shape, a dtype and no storage. What a real load measures
on the device (the forward's peak memory, the draw's, the model's size) is
counted here from the tensors each operator makes and frees, so a
full-size problem's memory plan is known on a machine without a GPU, or
without the memory to hold it, in milliseconds.

`EstimatedProblem` is a `Problem` (hone_oracle_problem.py) whose steps that
read values are left out: the signed distribution is kept as declared (its
check looks at values), every floating input is taken to need its signed
copy, a scaled set's factor is not drawn, no FLOPs are counted, nothing
moves between devices. A forward or a draw that reads a value fails with
`ValueNeeded`; a Model whose `__init__` reads one is built for real on the
CPU, within the host memory left (`_host_memory_bounded`), and its tensors
taken in as fakes. Only an operator's own outputs count,
not those of a decomposition torch 2 runs in its place. The oracle never
keeps one: it cannot generate values.

The count is what torch's caching allocator would be asked for: a new
tensor adds its storage's bytes, and they are freed when the last tensor on
that storage goes. The allocator's rounding (512
bytes a block) and its cached blocks are not counted.

torch is this module's global `torch`, set by hone_oracle.main().
"""

import contextlib
import resource
import weakref

from hone_oracle_problem import Problem
from hone_oracle_tensors import OracleError, _may_need_sign
from hone_oracle_trace import step

torch = None  # set by hone_oracle.main(), which imports it


class ValueNeeded(Exception):
    """The problem asked for a value a fake tensor does not hold."""


VALUE_NEEDED = (
    "it reads a tensor's value (.item(), .tolist(), bool() or an `if` on a "
    "tensor), which an estimate made without values cannot know"
)


class _LiveBytes:
    """Bytes held by the tensors made since the last `restart`, and their
    peak. A tensor made before the restart frees nothing of the new count."""

    def __init__(self):
        self.epoch = 0
        self.live = 0
        self.peak = 0
        # ids of the tensors counted and alive: a tensor an operator returns
        # again (an alias the schema does not mark) is counted once.
        self.counted = set()
        # Off while the model is built: its weights are counted from the
        # model, and a weak reference to one stops torch 2's Module.to()
        # from swapping a fake parameter onto the device.
        self.on = False

    def restart(self):
        self.epoch += 1
        self.live = 0
        self.peak = 0

    def made(self, tensor, nbytes):
        if not self.on or id(tensor) in self.counted:
            return
        self.counted.add(id(tensor))
        self.live += nbytes
        self.peak = max(self.peak, self.live)
        weakref.finalize(tensor, self._freed, self.epoch, nbytes, id(tensor))

    def _freed(self, epoch, nbytes, tensor_id):
        self.counted.discard(tensor_id)
        if epoch == self.epoch:
            self.live -= nbytes


def _storage_bytes(t):
    try:
        return int(t.untyped_storage().nbytes())
    except Exception:  # torch before 2.0, or a storage fake mode cannot show
        return t.numel() * t.element_size()


def _tensors(value):
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return [value] if isinstance(value, torch.Tensor) else []


def tracking_fake_mode():
    """A FakeTensorMode that counts, in its `live` (_LiveBytes), the storage
    of every tensor an operator returns that aliases none of its arguments.
    A view keeps its base's tensor alive (torch's view tracking), so the
    base's bytes are freed with its last view."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    class TrackingFakeMode(FakeTensorMode):
        def __init__(self):
            try:  # a problem's real tensors (module-level constants) taken in as fakes
                super().__init__(allow_non_fake_inputs=True)
            except TypeError:  # torch before 2.0
                super().__init__()
            self.live = _LiveBytes()
            # Operators the mode runs inside an operator: where an operator
            # has no shape function, torch 2 runs its decomposition, whose
            # temporaries the device's fused kernel never makes (softmax's
            # exp beside its output: 12.9 GB for level1/23_Softmax, not 6.4).
            self.depth = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if (
                func is torch.ops.aten._local_scalar_dense.default
                and getattr(args[0], "constant", None) is None
            ):
                # A fake made from a small constant (torch.tensor(2.0)) keeps
                # it and answers; any other has no value to give.
                raise ValueNeeded(VALUE_NEEDED)
            self.depth += 1
            try:
                out = super().__torch_dispatch__(func, types, args, kwargs)
            finally:
                self.depth -= 1
            if self.depth > 0:
                return out
            returns = getattr(getattr(func, "_schema", None), "returns", [])
            values = out if isinstance(out, (list, tuple)) and len(returns) > 1 else [out]
            for ret, value in zip(returns, values):
                if ret.alias_info is None:  # not a view, not an in-place result
                    for t in _tensors(value):
                        self.live.made(t, _storage_bytes(t))
            return out

    return TrackingFakeMode()


def _outside(fake):
    """A context in which `fake` (the mode in force) makes real tensors."""
    try:
        from torch._subclasses.fake_tensor import unset_fake_temporarily
    except ImportError:  # torch before 2.1: the fake mode is on the mode stack
        from torch.utils._python_dispatch import _pop_mode_temporarily

        return _pop_mode_temporarily()
    return unset_fake_temporarily()


def _faked(model, fake):
    """`model` (real, built outside `fake`) with every parameter and buffer
    replaced by a fake of it, so the real ones are freed. Called outside
    the mode: a real tensor may not meet an operator inside it."""
    from torch.utils._pytree import tree_flatten, tree_map_only

    for m in model.modules():
        for k, p in m._parameters.items():
            if p is not None:
                m._parameters[k] = torch.nn.Parameter(
                    fake.from_tensor(p.detach()), requires_grad=p.requires_grad
                )
        for k, b in m._buffers.items():
            if b is not None:
                m._buffers[k] = fake.from_tensor(b)
        for k, v in list(vars(m).items()):
            if k in ("_parameters", "_buffers", "_modules"):
                continue
            # A tensor kept as a plain attribute, or in a list, tuple or dict;
            # a container without one is left as it is (it may be shared).
            if any(torch.is_tensor(leaf) for leaf in tree_flatten(v)[0]):
                setattr(m, k, tree_map_only(torch.Tensor, fake.from_tensor, v))
    return model


# Of the host memory left, what a Model built for real may take (the rest is
# the oracle's and the machine's).
REAL_BUILD_SHARE = 0.8


def _host_bytes_left():
    """Memory this process may still take: the kernel's MemAvailable, less
    where a cgroup (a container's limit) leaves less."""
    left = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    left = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        with open("/sys/fs/cgroup/memory.current") as f:
            used = int(f.read())
        if limit != "max":
            room = int(limit) - used
            left = room if left is None else min(left, room)
    except (OSError, ValueError):
        pass
    return left


def _address_space_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmSize in /proc/self/status")


@contextlib.contextmanager
def _host_memory_bounded(path):
    """Bounds what the block may allocate to REAL_BUILD_SHARE of the host
    memory left, by the process's address space (RLIMIT_AS, put back after):
    a Model built for real for an estimate could otherwise take more than
    the machine has and be killed by the kernel, with the oracle and every
    estimate after it. Past the bound, torch's allocation fails and the
    estimate names the reason. Where the memory left cannot be read, the
    block runs unbounded."""
    left = _host_bytes_left()
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        allowed = int(left * REAL_BUILD_SHARE) if left is not None else None
        bound = _address_space_bytes() + allowed if allowed is not None else None
    except (OSError, ValueError):
        bound = None
    if bound is not None and hard != resource.RLIM_INFINITY:
        bound = min(bound, hard)
    if bound is None or (soft != resource.RLIM_INFINITY and soft <= bound):
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (bound, hard))
    try:
        yield
    except (MemoryError, RuntimeError) as e:
        if isinstance(e, MemoryError) or "allocate" in str(e):
            raise OracleError(
                f"{path}: its Model's __init__ reads a tensor's value, so the estimate "
                f"builds the Model for real on this machine's CPU, and it needs more "
                f"than the {allowed / 1e9:.2f} GB of host memory the estimate may take "
                f"here ({e.__class__.__name__}: {str(e)[:200]})"
            ) from None
        raise
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# torch 1.13's fake tensors refuse these outright, not by an operator.
_SUBCLASS_REFUSALS = (".tolist() is not supported", ".numpy() is not supported")


def _value_refused(e):
    """Whether `e` is a fake tensor refusing to give a value."""
    return isinstance(e, ValueNeeded) or (
        isinstance(e, RuntimeError) and any(r in str(e) for r in _SUBCLASS_REFUSALS)
    )


class EstimatedProblem(Problem):
    """A Problem built under a tracking FakeTensorMode (see the module's
    text). Its load reply says `estimated`."""

    def build(self):
        self.fake = tracking_fake_mode()
        try:
            with self.fake:
                super().build()
        except RuntimeError as e:
            if not _value_refused(e):
                raise
            # Worded as every value read is; the traceback keeps the line.
            raise ValueNeeded(VALUE_NEEDED).with_traceback(e.__traceback__) from None
        step("problem estimated without running it")

    def _make_model(self, model_class, init):
        try:
            return super()._make_model(model_class, init)
        except (ValueNeeded, RuntimeError) as e:
            if not _value_refused(e):
                raise
            # Model's __init__ reads a value (timm's stochastic-depth rates,
            # `x.item()` or `.tolist()` over a torch.linspace): built for real
            # on the CPU, within the host memory left, then its tensors taken
            # in as fakes. Only such a model is made.
            with _outside(self.fake), _host_memory_bounded(self.path):
                model = super()._make_model(model_class, init)
            with _outside(self.fake):
                return _faked(model, self.fake)

    def _measured_draws(self):
        live = self.fake.live
        live.on = True
        peak, args = 0, None
        for d in range(len(self.distributions)):
            live.restart()
            drawn = self.inputs(0, d)
            peak = max(peak, live.peak)
            if d == 0:
                args = drawn
            del drawn
        self.memory["draw_peak_bytes"] = peak
        return args

    def _measured_forward(self, args):
        live = self.fake.live
        live.restart()
        outs = self.forward(args, clone=False)
        self.memory.update(
            {
                "forward_peak_bytes": live.peak,
                "model_bytes": self.model_bytes(),
            }
        )
        return outs

    def _uniform(self, g):
        return 0.5  # the bytes of a scaled set do not depend on its scale

    def _needs_sign(self, t):
        # Values are unknown: every floating input is taken to be signed,
        # so the signed set's copy is counted.
        return _may_need_sign(t)

    def _check_signed(self, args, outs):
        self.left_out = []

    def _count_flops(self, args):
        return None

    def move_to(self, where):
        pass

    def load_reply(self):
        r = super().load_reply()
        r["estimated"] = True
        return r
