"""Autograd of the operators, built from the spec.

The operators are themselves backward kernels; their own derivative (double backward) is not implemented. Without
an autograd kernel torch's fallback only warns when something backpropagates through them and leaves the inputs'
.grad at None, so second-order use would silently miss gradients. Instead:

- every functional op gets an Autograd kernel: the forward runs as usual and its output requires grad when an input
  does; backpropagating through it raises NotImplementedError naming the op. The backward does not raise by itself
  but calls actgrad::_double_backward_not_implemented, whose kernel raises (its Meta kernel returns an empty
  gradient): torch.compile traces the backward when an input requires grad, and so compiles, runs the forward and
  raises only when the compiled backward runs, as eager does.
- every .out overload, which mutates `out`, gets an Autograd kernel that refuses arguments requiring grad (with
  grad mode on) with the error ATen's out= functions raise, and otherwise runs the kernel below autograd; and, as
  torch.library.custom_op gives a mutable op, an ADInplaceOrView kernel that bumps the version counter of `out`,
  so that autograd notices the write when `out` was saved for another op's backward.
- forward-mode AD (torch.func.jvp, torch.autograd.forward_ad) is refused by both with NotImplementedError: the
  tangent would otherwise be dropped silently.

All are C++ kernels (op_host/autograd_kernels.cpp): torch.library.register_autograd's Python wrapper cost about
25 us per functional call, three times the rest of a small call.
"""
from __future__ import annotations

from collections.abc import Iterable

import torch

from . import _C
from .spec import OpSpec

DOUBLE_BACKWARD_OP = "_double_backward_not_implemented"


def double_backward_message(op_name: str) -> str:
    return (f"actgrad.{op_name}: double backward (the derivative of actgrad.{op_name}) is not implemented by actgrad. "
            f"actgrad.{op_name} is itself a backward kernel; call it on inputs that do not require grad (detach "
            "them, or use torch.no_grad()) where it is not to be differentiated.")


def forward_ad_message(op: OpSpec) -> str:
    return (f"actgrad.{op.name}: forward-mode AD (a tangent on an input) is not implemented by actgrad. "
            f"actgrad.{op.name} is itself a backward kernel; call it on tensors without tangents.")


def out_requires_grad_message(op: OpSpec) -> str:
    # the wording of ATen's out= functions, e.g. torch.add(x, y, out=z) with x requiring grad
    return (f"actgrad.{op.name}(): functions with out=... arguments don't support automatic differentiation, but "
            "one of the arguments requires grad.")


def _double_backward_not_implemented(grad: torch.Tensor, op_name: str) -> torch.Tensor:
    raise NotImplementedError(double_backward_message(op_name))


def _double_backward_meta(grad: torch.Tensor, op_name: str) -> torch.Tensor:
    return torch.empty_like(grad)


def register(lib: torch.library.Library, ops: Iterable[OpSpec]) -> None:
    """Register the autograd of `ops`, already defined in `lib` (functional and .out)."""
    lib.define(f"{DOUBLE_BACKWARD_OP}(Tensor grad, str op_name) -> Tensor")
    lib.impl(DOUBLE_BACKWARD_OP, _double_backward_not_implemented, "CompositeExplicitAutograd")
    lib.impl(DOUBLE_BACKWARD_OP, _double_backward_meta, "Meta")
    for op in ops:
        _C.register_functional_autograd(lib.ns, op.name, DOUBLE_BACKWARD_OP, forward_ad_message(op))
        _C.register_out_autograd(lib.ns, op.name, out_requires_grad_message(op), forward_ad_message(op))
