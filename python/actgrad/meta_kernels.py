"""The Meta kernels of an operator (functional and out=), built from the spec. They validate as the C++ kernels of
the launching backends (op_host/torch_kernels.cpp) do, with torch._check so that FakeTensor and torch.compile turn
the shape checks into guards, and give the functional result the strides the C++ kernels give it."""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch._prims_common import is_non_overlapping_and_dense_or_false as is_non_overlapping_and_dense

from . import _C
from .checks import check_inputs, check_out, reduction_axis
from .schema import attribute_values
from .spec import OpSpec

_FUNCTIONAL = object()  # the `out` of a functional call (None is an invalid out=, refused by check_out)


def elementwise_output_strides(first: torch.Tensor, second: torch.Tensor) -> tuple | None:
    """The strides ATen's TensorIterator gives the output of a binary elementwise op on (first, second), which have
    one shape: ATen's activation backward functions take (grad_output, self), so the operators give their result the
    layout of (gradient, saved tensor), or (saved tensor, gradient) where ATen's counterpart iterates in that order
    (OpSpec.layout_first). None: contiguous. As op_host/torch_kernels.cpp ElementwiseOutputStrides."""
    if first.is_contiguous() and second.is_contiguous():
        return None
    if (first.is_contiguous(memory_format=torch.channels_last)
            and second.is_contiguous(memory_format=torch.channels_last)):
        n, c, h, w = first.shape
        return (h * w * c, 1, w * c, c)
    if (is_non_overlapping_and_dense(first) and is_non_overlapping_and_dense(second)
            and first.stride() == second.stride()):
        return tuple(second.stride())
    ndim = first.dim()
    if ndim <= 1:
        return None
    shape = first.shape

    def should_swap(dim0: int, dim1: int) -> int:  # 1: dim0 after dim1, -1: before, 0: undecided
        for t in (first, second):
            stride0, stride1 = t.stride(dim0), t.stride(dim1)
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 != stride1:
                return -1 if stride0 < stride1 else 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))  # fastest-moving dimension first
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    if perm == list(range(ndim - 1, -1, -1)):
        return None
    strides = [0] * ndim
    step = 1
    for dim in perm:
        strides[dim] = step
        step *= shape[dim]
    return tuple(strides)


def _validate(op: OpSpec, in0, in1, attrs, out=_FUNCTIONAL) -> None:
    check_inputs(op, in0, in1)
    if out is not _FUNCTIONAL:
        check_out(op, out, in0)
    if op.family == "row":
        reduction_axis(op, attrs[0] if attrs else op.attrs[0].default, in0.dim())  # IndexError naming the axis
    else:
        _C.check_attrs(op.op_type, attribute_values(op, attrs))  # ValueError naming the attribute


def meta_kernels(op: OpSpec) -> tuple[Callable, Callable]:
    def functional(in0, in1, *attrs):
        _validate(op, in0, in1, attrs)
        if op.family == "row":  # contiguous, as ATen's _softmax_backward_data
            return in0.new_empty(in0.shape)
        first, second = (in0, in1) if op.layout_first_index == 0 else (in1, in0)
        strides = elementwise_output_strides(first, second)
        if strides is None:
            return in0.new_empty(in0.shape)
        return in0.new_empty_strided(in0.shape, strides)

    def out_variant(in0, in1, *attrs, out):
        _validate(op, in0, in1, attrs, out)

    return functional, out_variant
