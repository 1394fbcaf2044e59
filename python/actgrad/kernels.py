"""The torch kernels of an operator, built from the spec: one launching pair (functional, out=) per backend and
the Meta pair. All of them validate the same way before anything is allocated or launched."""
from __future__ import annotations

from collections.abc import Callable

import torch

from . import _C
from .checks import check_inputs, check_out
from .schema import attribute_values
from .spec import OpSpec

# launch(op_type, in0, in1, out, attrs): run the kernel on contiguous inputs (IR order) into contiguous `out`
Launch = Callable[[str, torch.Tensor, torch.Tensor, torch.Tensor, list], object]


_FUNCTIONAL = object()  # the `out` of a functional call (None is an invalid out=, refused by check_out)


def _validated_attrs(op: OpSpec, in0, in1, attrs, out=_FUNCTIONAL) -> list[float]:
    check_inputs(op, in0, in1)
    if out is not _FUNCTIONAL:
        check_out(op, out, in0)
    values = attribute_values(op, attrs)
    _C.check_attrs(op.op_type, values)  # ValueError naming the attribute
    return values


def _overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two contiguous tensors share a byte."""
    a_begin, b_begin = a.data_ptr(), b.data_ptr()
    return a_begin < b_begin + b.numel() * b.element_size() and b_begin < a_begin + a.numel() * a.element_size()


def _can_write_into(out: torch.Tensor, saved: torch.Tensor, grad: torch.Tensor) -> bool:
    """The kernel may write into `out` while reading saved/grad: out is contiguous and is either disjoint from both
    or exactly the gradient (in-place, as oneDNN allows diff_src to alias diff_dst)."""
    if not out.is_contiguous() or _overlap(out, saved):
        return False
    return not _overlap(out, grad) or out.data_ptr() == grad.data_ptr()


def launching_kernels(op: OpSpec, launch: Launch) -> tuple[Callable, Callable]:
    def functional(in0, in1, *attrs):
        values = _validated_attrs(op, in0, in1, attrs)
        result = torch.empty_like(in0, memory_format=torch.contiguous_format)
        if result.numel() > 0:
            launch(op.op_type, in0.contiguous(), in1.contiguous(), result, values)
        return result

    def out_variant(in0, in1, *attrs, out):
        values = _validated_attrs(op, in0, in1, attrs, out)
        if out.numel() == 0:
            return
        in0, in1 = in0.contiguous(), in1.contiguous()
        saved, grad = (in0, in1) if op.saved_index == 0 else (in1, in0)
        if _can_write_into(out, saved, grad):
            launch(op.op_type, in0, in1, out, values)
        else:
            result = torch.empty_like(in0)
            launch(op.op_type, in0, in1, result, values)
            out.copy_(result)

    return functional, out_variant


def meta_kernels(op: OpSpec) -> tuple[Callable, Callable]:
    def functional(in0, in1, *attrs):
        _validated_attrs(op, in0, in1, attrs)
        return in0.new_empty(in0.shape)

    def out_variant(in0, in1, *attrs, out):
        _validated_attrs(op, in0, in1, attrs, out)

    return functional, out_variant
