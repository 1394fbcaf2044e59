"""Validation of the tensor arguments, shared by every kernel (CPU, Meta, NPU); errors name the argument.

torch._check keeps the checks traceable: under FakeTensor/torch.compile they become guards on symbolic shapes.
"""
from __future__ import annotations

import torch

from .spec import DTYPES, MAX_RANK, OpSpec

SUPPORTED_DTYPES = tuple(getattr(torch, name) for name in DTYPES)
_DTYPE_NAMES = ", ".join(f"torch.{name}" for name in DTYPES)


def _require(cond, message) -> None:
    """torch._check, minus its cost when the condition is a plain True (every eager call that passes)."""
    if cond is True:
        return
    torch._check(cond, message)


def _require_tensor(fn: str, name: str, t) -> None:
    # the dispatcher passes None (and only None) for a Tensor argument that is not one
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{fn}: {name} must be a Tensor, got {type(t).__name__}")


def check_inputs(op: OpSpec, in0: torch.Tensor, in1: torch.Tensor) -> None:
    fn = f"actgrad.{op.name}"
    name0, name1 = op.inputs
    _require_tensor(fn, name0, in0)
    _require_tensor(fn, name1, in1)
    for name, t in ((name0, in0), (name1, in1)):
        _require(t.dtype in SUPPORTED_DTYPES,
                     lambda: f"{fn}: {name} has dtype {t.dtype}; supported dtypes are {_DTYPE_NAMES}")
    _require(in0.dtype == in1.dtype,
                 lambda: f"{fn}: {name0} and {name1} must have the same dtype, got {in0.dtype} and {in1.dtype}")
    _require(in0.device == in1.device,
                 lambda: f"{fn}: {name0} and {name1} must be on the same device, got {in0.device} and {in1.device}")
    _require(in0.shape == in1.shape, lambda: f"{fn}: {name0} and {name1} must have the same shape, "
                                                 f"got {list(in0.shape)} and {list(in1.shape)}")
    _require(in0.dim() <= MAX_RANK,
                 lambda: f"{fn}: {name0} has rank {in0.dim()}; at most {MAX_RANK} dimensions are supported")


def check_out(op: OpSpec, out: torch.Tensor, like: torch.Tensor) -> None:
    """`out` must match the result exactly: it is never resized or cast."""
    fn = f"actgrad.{op.name}"
    _require_tensor(fn, "out", out)
    _require(out.dtype == like.dtype, lambda: f"{fn}: out has dtype {out.dtype}, expected {like.dtype}")
    _require(out.device == like.device, lambda: f"{fn}: out is on {out.device}, expected {like.device}")
    _require(out.shape == like.shape,
                 lambda: f"{fn}: out has shape {list(out.shape)}, expected {list(like.shape)}")


def reduction_axis(op: OpSpec, axis: int, rank: int) -> int:
    """A row operator's axis wrapped into [0, rank) (a 0-dimensional tensor is one row of one element, as ATen wraps
    it), or IndexError naming the axis, as ATen's dimension wrapping (op_host/torch_kernels.cpp ReductionAxis words it
    alike)."""
    bound = max(rank, 1)
    if not -bound <= axis < bound:
        raise IndexError(f"actgrad.{op.name}: axis {axis} is out of range for a {rank}-dimensional {op.inputs[0]} "
                         f"(expected to be in range of [{-bound}, {bound - 1}])")
    return axis + bound if axis < 0 else axis
