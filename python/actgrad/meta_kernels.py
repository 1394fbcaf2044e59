"""The Meta kernels of an operator (functional and out=), built from the spec. They validate as the C++ kernels of
the launching backends (op_host/torch_kernels.cpp) do, with torch._check so that FakeTensor and torch.compile turn
the shape checks into guards."""
from __future__ import annotations

from collections.abc import Callable

from . import _C
from .checks import check_inputs, check_out
from .schema import attribute_values
from .spec import OpSpec

_FUNCTIONAL = object()  # the `out` of a functional call (None is an invalid out=, refused by check_out)


def _validate(op: OpSpec, in0, in1, attrs, out=_FUNCTIONAL) -> None:
    check_inputs(op, in0, in1)
    if out is not _FUNCTIONAL:
        check_out(op, out, in0)
    _C.check_attrs(op.op_type, attribute_values(op, attrs))  # ValueError naming the attribute


def meta_kernels(op: OpSpec) -> tuple[Callable, Callable]:
    def functional(in0, in1, *attrs):
        _validate(op, in0, in1, attrs)
        return in0.new_empty(in0.shape)

    def out_variant(in0, in1, *attrs, out):
        _validate(op, in0, in1, attrs, out)

    return functional, out_variant
