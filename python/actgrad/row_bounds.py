"""The error bound of one float32 evaluation of the row reductions, per element (docs/row_reductions.md derives it).

Shared by the demo and the tests; the float64 values it bounds the distance to are each caller's own. Needs torch
only (the tests load this file by path, without the extension).
"""
from __future__ import annotations

import torch

U = 2.0 ** -24  # the unit roundoff of float32
TINY = 2.0 ** -149  # the smallest f32 subnormal: what an underflowing f32 step may lose, per step


def row_f32_error_bound(op: str, diff_dst: torch.Tensor, dst: torch.Tensor, axis: int) -> torch.Tensor:
    """|f32 result - float64 value| of `op` ("soft_max_backward" or "log_softmax_backward") along `axis` (wrapped
    into [0, rank)), per element, for float64 tensors of the inputs' values (a 0-dimensional tensor is one row of one
    element). With R the row length and s the row sum:

    * softmax, dst*(diff_dst - s), s = sum(diff_dst*dst): s carries at most R*u*sum|diff_dst*dst| (R products
      rounded and R-1 additions, in any order, to first order in u), the difference and the product one rounding
      each; dst is a probability (|dst| <= 1), so an underflowing step costs at most TINY:
          |dst|*(R*u*sum|diff_dst*dst| + 2u*(|diff_dst| + |s|)) + (R + 2)*TINY
    * log-softmax, diff_dst - exp(dst)*s, s = sum(diff_dst): s carries R*u*sum|diff_dst|, exp(dst) 4 f32 ulps (<= 8u
      relative, the vector Exp's accuracy target; 4 TINY absolute where it is subnormal), the product and the
      difference one rounding each:
          exp(dst)*(R*u*sum|diff_dst| + 10u*|s|) + u*|diff_dst| + (R + 2)*TINY + 4*TINY*|s|
    """
    shape = dst.shape
    g, d = (t.double().reshape(t.shape or (1,)) for t in (diff_dst, dst))
    r = g.shape[axis]
    if op == "soft_max_backward":
        s = (g * d).sum(axis, keepdim=True)
        total = (g * d).abs().sum(axis, keepdim=True)
        bound = d.abs() * (r * U * total + 2 * U * (g.abs() + s.abs()))
    elif op == "log_softmax_backward":
        s = g.sum(axis, keepdim=True)
        total = g.abs().sum(axis, keepdim=True)
        bound = d.exp() * (r * U * total + 10 * U * s.abs()) + U * g.abs() + 4 * TINY * s.abs()
    else:
        raise ValueError(f"row_f32_error_bound: op must be soft_max_backward or log_softmax_backward, got {op!r}")
    return (bound + (r + 2) * TINY).reshape(shape)
