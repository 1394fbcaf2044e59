"""float64 references of the row-reduction grads and the launch of their kernels through _C.launch_rows (shared by
tests/test_row_kernel.py)."""
import math

import torch

from actgrad import _C

OPS = {"softmax": "ActgradSoftMaxBackward", "log_softmax": "ActgradLogSoftmaxBackward"}
SOC = "Ascend910B2"
F32_MAX_LOG = math.log(torch.finfo(torch.float32).max)  # exp(d) overflows f32 above this


def view3(shape, axis):
    """The [outer, R, inner] view of a contiguous tensor of `shape` reduced over `axis`."""
    axis %= len(shape)
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])


def launch(op, diff_dst, dst, axis, out=None, soc=SOC, threads=0, stats=False):
    """The kernel's diff_src (a new tensor, or `out`)."""
    out = torch.empty_like(diff_dst) if out is None else out
    outer, rows, inner = view3(tuple(diff_dst.shape), axis)
    s = _C.launch_rows(OPS[op], diff_dst, dst, out, outer, rows, inner, soc, threads, stats)
    return (out, s) if stats else out


def reference(op, diff_dst, dst, axis):
    """(diff_src in float64, the f32 error bound of each element, the rows' NaN mask broadcast over the axis).

    The contract's NaN rule: a row with a NaN in either input is all NaN; for log-softmax also a row with an
    exp(dst) that overflows f32 (dst = +inf or > log(FLT_MAX)), as the kernel adds 0*exp(dst) into the sum.
    The bound is that of f32 accumulation with R_eff = R + 2 roundings on the way to each summand's share of the
    sum (a sequential order is the worst case; the kernel's trees only do better), plus a few roundings of the
    elementwise step:
      softmax:     |err| <= 2^-24 * |d| * ((R+2) * sum|dd*d| + 2 * |dd|)
      log-softmax: |err| <= 2^-24 * ((R+2) * e * sum|dd| + 8 * e * |s| + 2 * |dd|),  e = exp(d)
    (8 ulps of e*s allow the vector Exp's error)."""
    dd, d = diff_dst.double(), dst.double()
    r = dd.shape[axis]
    u = 2.0 ** -24
    nan_in = (dd.isnan() | d.isnan()).any(axis, keepdim=True)
    if op == "softmax":
        s = (dd * d).sum(axis, keepdim=True)
        out = d * (dd - s)
        bound = u * d.abs() * ((r + 2) * (dd * d).abs().sum(axis, keepdim=True) + 2 * dd.abs())
    else:
        s = dd.sum(axis, keepdim=True)
        e = torch.exp(d)
        out = dd - e * s
        nan_in = nan_in | (d > F32_MAX_LOG).any(axis, keepdim=True)
        bound = u * ((r + 2) * e * dd.abs().sum(axis, keepdim=True) + 8 * e * s.abs() + 2 * dd.abs())
    nan_rows = nan_in.expand_as(out)
    return out.masked_fill(nan_rows, math.nan), bound, nan_rows
