"""A stand-in for torch, for tests of hone's Python pieces that take torch
as a value (python/hone_compat.py's helpers, the module global of
python/hone_oracle.py and of its parts hone_oracle_*.py): just what they
touch of it. torch.device(...) is a context manager
that sets FakeTorch.on_device; FakeOutOfMemory plays
torch.cuda.OutOfMemoryError; manual_seed records its seeds."""

import types


class FakeOutOfMemory(RuntimeError):
    pass


class FakeTorch:
    cuda = types.SimpleNamespace(OutOfMemoryError=FakeOutOfMemory)
    on_device = False
    seeds = []

    class _Device:
        def __enter__(self):
            FakeTorch.on_device = True

        def __exit__(self, *exc):
            FakeTorch.on_device = False
            return False

    @staticmethod
    def device(name):
        return FakeTorch._Device()

    @staticmethod
    def is_tensor(a):
        return False

    @staticmethod
    def manual_seed(seed):
        FakeTorch.seeds.append(seed)
