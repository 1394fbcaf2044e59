"""The GE built-in operators graphs of actgrad operators need: Add, Sub, Mul, Div, RealDiv, Neg, Cast, Identity.

GE runs them as CANN's kernels; here a Session computes them on the host with torch. Their inference follows CANN's:
Add and Mul promote the data types of their inputs (CANN's Promote table, which torch.promote_types matches on the
types here); Sub, Div and RealDiv take one data type, Div and RealDiv a floating one (integer division is not
implemented on the host); shapes broadcast as NumPy's.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Union

import torch

from ..graph._dtypes import FLOATING, dtype_name, to_ge, to_torch
from .._shapes import broadcast
from ..graph._ir import AttrValue
from ..graph.types import DataType
from ._node import add_node
from .tensor_holder import TensorHolder
from .tensor_like import TensorLike


@dataclass(frozen=True)
class Builtin:
    inputs: tuple[str, ...]
    infer: Callable  # as _node.Infer
    host: Callable[[list, dict, torch.dtype], torch.Tensor]  # (input tensors, attrs, output dtype) -> output


def _binary_infer(promote: bool, floating_only: bool = False, no_bool: bool = False):
    def infer(who: str, ins: list, attrs: dict) -> tuple:
        for name, (dt, _) in zip(("x1", "x2"), ins):
            to_torch(dt, f"{who}: {name}")
            if floating_only and dt not in FLOATING:
                raise TypeError(f"{who}: {name} has data type {dtype_name(dt)}; expected a floating data type "
                                f"({', '.join(d.name for d in FLOATING)})")
            if no_bool and dt == DataType.DT_BOOL:
                raise TypeError(f"{who}: {name} has data type DT_BOOL, which it does not take")
        (d1, s1), (d2, s2) = ins
        if promote:
            out = to_ge(torch.promote_types(to_torch(d1, who), to_torch(d2, who)), who)
        elif d1 != d2:
            raise TypeError(f"{who}: x1 and x2 must have the same data type, got {dtype_name(d1)} and "
                            f"{dtype_name(d2)}")
        else:
            out = d1
        try:
            return int(out), broadcast(s1, s2)
        except ValueError as error:
            raise ValueError(f"{who}: x1 and x2 {error}") from None
    return infer


def _unary_infer(no_bool: bool = False):
    def infer(who: str, ins: list, attrs: dict) -> tuple:
        (dt, shape), = ins
        to_torch(dt, f"{who}: x")
        if no_bool and dt == DataType.DT_BOOL:
            raise TypeError(f"{who}: x has data type DT_BOOL, which it does not take")
        return dt, shape
    return infer


def _cast_infer(who: str, ins: list, attrs: dict) -> tuple:
    (dt, shape), = ins
    to_torch(dt, f"{who}: x")
    dst = attrs["dst_type"].value
    to_torch(dst, f"{who}: dst_type")
    return dst, shape


BUILTINS: dict[str, Builtin] = {
    "Add": Builtin(("x1", "x2"), _binary_infer(promote=True), lambda t, a, dt: torch.add(t[0].to(dt), t[1].to(dt))),
    "Sub": Builtin(("x1", "x2"), _binary_infer(promote=False, no_bool=True), lambda t, a, dt: torch.sub(t[0], t[1])),
    "Mul": Builtin(("x1", "x2"), _binary_infer(promote=True), lambda t, a, dt: torch.mul(t[0].to(dt), t[1].to(dt))),
    "Div": Builtin(("x1", "x2"), _binary_infer(promote=False, floating_only=True),
                   lambda t, a, dt: torch.div(t[0], t[1])),
    "RealDiv": Builtin(("x1", "x2"), _binary_infer(promote=False, floating_only=True),
                       lambda t, a, dt: torch.div(t[0], t[1])),
    "Neg": Builtin(("x",), _unary_infer(no_bool=True), lambda t, a, dt: torch.neg(t[0])),
    # copy=True: Tensor.to hands back its input when the type already matches, and an output must not alias it
    "Cast": Builtin(("x",), _cast_infer, lambda t, a, dt: t[0].to(dt, copy=True)),
    "Identity": Builtin(("x",), _unary_infer(), lambda t, a, dt: t[0].clone()),
}


def _build(op_type: str, *values, attrs: dict | None = None) -> TensorHolder:
    b = BUILTINS[op_type]
    return add_node(op_type, b.inputs, values, b.infer, attrs or {}, "y")


Operand = Union[TensorHolder, TensorLike]


def Add(x1: Operand, x2: Operand) -> TensorHolder:
    """y = x1 + x2 (GE built-in Add; data types promoted, shapes broadcast). Runs on the host with torch.add."""
    return _build("Add", x1, x2)


def Sub(x1: Operand, x2: Operand) -> TensorHolder:
    """y = x1 - x2 (GE built-in Sub; one data type, shapes broadcast). Runs on the host with torch.sub."""
    return _build("Sub", x1, x2)


def Mul(x1: Operand, x2: Operand) -> TensorHolder:
    """y = x1 * x2 (GE built-in Mul; data types promoted, shapes broadcast). Runs on the host with torch.mul."""
    return _build("Mul", x1, x2)


def Div(x1: Operand, x2: Operand) -> TensorHolder:
    """y = x1 / x2 (GE built-in Div; one floating data type, shapes broadcast). Runs on the host with torch.div."""
    return _build("Div", x1, x2)


def RealDiv(x1: Operand, x2: Operand) -> TensorHolder:
    """y = x1 / x2 (GE built-in RealDiv; one floating data type, shapes broadcast). Runs on the host with
    torch.div."""
    return _build("RealDiv", x1, x2)


def Neg(x: TensorHolder) -> TensorHolder:
    """y = -x (GE built-in Neg). Runs on the host with torch.neg."""
    return _build("Neg", x)


def Cast(x: TensorHolder, *, dst_type: int) -> TensorHolder:
    """y = x converted to dst_type, a DataType (GE built-in Cast). Runs on the host with torch's Tensor.to (round to
    nearest even between floating types, truncation toward zero from floating to integer types)."""
    if isinstance(dst_type, bool) or not isinstance(dst_type, int):
        raise TypeError(f"Cast: dst_type must be a DataType (an int), got {type(dst_type).__name__}")
    return _build("Cast", x, attrs={"dst_type": AttrValue("i", int(dst_type))})


def Identity(x: TensorHolder) -> TensorHolder:
    """y = x (GE built-in Identity). Runs on the host (a copy, torch's Tensor.clone)."""
    return _build("Identity", x)


__all__ = ["Add", "Sub", "Mul", "Div", "RealDiv", "Neg", "Cast", "Identity"]
