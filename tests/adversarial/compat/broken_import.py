# Its load_inline build cannot compile: a compile_error naming the failure,
# with the compiler's output in the verdict.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

mod = load_inline(name="hone_compat_broken", cpp_sources="this is not C++;",
                  functions=["nothing"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return mod.nothing(x)
