"""Operands that are not TensorHolders (ge.es.tensor_like): Python numbers and nested lists become Const nodes, as
GE's: an int is a DT_INT64 constant, a float (or a list holding one) a DT_FLOAT one."""
from __future__ import annotations

from typing import TYPE_CHECKING, List, Union

if TYPE_CHECKING:
    from .graph_builder import GraphBuilder
    from .tensor_holder import TensorHolder

Number = Union[int, float]
TensorLike = Union[Number, List["TensorLike"]]


def convert_to_tensor_holder(value, owner_builder: "GraphBuilder"):
    """value as a TensorHolder of owner_builder (None stays None)."""
    from .tensor_holder import TensorHolder  # noqa: PLC0415
    if value is None or isinstance(value, TensorHolder):
        return value
    if isinstance(value, bool):
        raise TypeError("Value must be TensorHolder or int|float or nested lists of int|float or None, got a bool")
    if isinstance(value, int):
        return owner_builder.create_scalar_int64(value)
    if isinstance(value, float):
        return owner_builder.create_scalar_float(value)
    if isinstance(value, list):
        flat, shape = _flatten(value)
        if any(isinstance(v, float) for v in flat):
            return owner_builder.create_const_float([float(v) for v in flat], shape=shape)
        return owner_builder.create_const_int64(flat, shape=shape)
    raise TypeError("Value must be TensorHolder or int|float or nested lists of int|float or None, "
                    f"got {type(value).__name__}")


def resolve_builder(*values):
    """The GraphBuilder of the first TensorHolder (or GraphBuilder) among values."""
    from .graph_builder import GraphBuilder  # noqa: PLC0415
    from .tensor_holder import TensorHolder  # noqa: PLC0415
    for value in values:
        if isinstance(value, GraphBuilder):
            return value
        if isinstance(value, TensorHolder):
            return value.get_owner_builder()
    raise ValueError("Please ensure at least one input tensor or an explicit owner_builder is provided when supported")


def _flatten(value: list) -> tuple[list, list[int]]:
    if not value:
        return [], [0]
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return list(value), [len(value)]
    if not all(isinstance(v, list) and v for v in value):
        raise TypeError("Value must be int|float or nested lists of int|float")
    parts = [_flatten(v) for v in value]
    if any(shape != parts[0][1] for _, shape in parts):
        raise ValueError("Irregular nested list: all sub-lists must have the same shape")
    return [x for flat, _ in parts for x in flat], [len(value), *parts[0][1]]
