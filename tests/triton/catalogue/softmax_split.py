# Correct: softmax over rows far wider than one block (KernelBench
# level1/23_Softmax: 393216 columns), split across programs in three
# launches as published kernels often do: each program's chunk of a row gives
# its maximum and its sum of exponentials, one program per row combines the
# chunks, then every chunk is normalised. Each launch is short; the output
# is large (6.4 GB at full size).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def chunk_stats_kernel(x_ptr, max_ptr, sum_ptr, n_cols, stride_row, chunks, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=float("-inf"))
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    tl.store(max_ptr + row * chunks + chunk, m)
    tl.store(sum_ptr + row * chunks + chunk, s)


@triton.jit
def combine_kernel(max_ptr, sum_ptr, row_max_ptr, row_sum_ptr, chunks, CHUNKS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    idx = tl.arange(0, CHUNKS)
    mask = idx < chunks
    m = tl.load(max_ptr + row * chunks + idx, mask=mask, other=float("-inf"))
    s = tl.load(sum_ptr + row * chunks + idx, mask=mask, other=0.0)
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - row_max), axis=0)
    tl.store(row_max_ptr + row, row_max)
    tl.store(row_sum_ptr + row, total)


@triton.jit
def normalise_kernel(x_ptr, out_ptr, row_max_ptr, row_sum_ptr, n_cols, stride_row,
                     BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=float("-inf"))
    row_max = tl.load(row_max_ptr + row)
    total = tl.load(row_sum_ptr + row)
    tl.store(out_ptr + row * stride_row + cols, tl.exp(x - row_max) / total, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        block = 4096
        chunks = triton.cdiv(cols, block)
        part_max = torch.empty((rows, chunks), device=x.device, dtype=torch.float32)
        part_sum = torch.empty_like(part_max)
        row_max = torch.empty((rows,), device=x.device, dtype=torch.float32)
        row_sum = torch.empty_like(row_max)
        out = torch.empty_like(x)
        chunk_stats_kernel[(rows, chunks)](x, part_max, part_sum, cols, x.stride(0), chunks,
                                           BLOCK=block, num_warps=8)
        combine_kernel[(rows,)](part_max, part_sum, row_max, row_sum, chunks,
                                CHUNKS=triton.next_power_of_2(chunks))
        normalise_kernel[(rows, chunks)](x, out, row_max, row_sum, cols, x.stride(0),
                                         BLOCK=block, num_warps=8)
        return out
