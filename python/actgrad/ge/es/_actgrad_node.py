"""The nodes of the actgrad operators: inference with the rules of their C++ InferShape/InferDataType (both inputs
one data type of the spec's, one shape, rank <= MAX_RANK; an unknown shape stays unknown until run time), attributes
taken by their IR names and values and validated by the checks the eager ops run (functions' type conversions, then
_C.check_attrs), and the way back from the IR's attributes to the torch op's arguments."""
from __future__ import annotations

import ctypes

import torch

from ... import _C
from ...functions import ATTRIBUTE_CONVERSIONS
from ...schema import attribute_values
from ...spec import BY_TYPE, MAX_RANK, OpSpec
from ..graph._dtypes import GE_DTYPES, dtype_name
from .._shapes import same, show
from ..graph._ir import AttrValue
from ._node import add_node

_KIND = {"float": "f", "bool": "b", "str": "s", "int": "i"}


def infer(op: OpSpec):
    supported = [GE_DTYPES[getattr(torch, d)] for d in op.dtypes]  # the spec names dtypes as torch does

    def check(who: str, ins: list, attrs: dict) -> tuple:
        for name, (dt, shape) in zip(op.inputs, ins):
            if dt not in supported:
                raise TypeError(f"{who}: {name} has data type {dtype_name(dt)}; supported data types are "
                                + ", ".join(d.name for d in supported))
            if shape is not None and len(shape) > MAX_RANK:
                raise ValueError(f"{who}: {name} has rank {len(shape)}; at most {MAX_RANK} dimensions are supported")
        (d0, s0), (d1, s1) = ins
        name0, name1 = op.inputs
        if d0 != d1:
            raise TypeError(f"{who}: {name0} and {name1} must have the same data type, got {dtype_name(d0)} and "
                            f"{dtype_name(d1)}")
        shape = same(s0, s1)
        if shape is None and s0 is not None and s1 is not None:
            raise ValueError(f"{who}: {name0} and {name1} must have the same shape, got {show(s0)} and {show(s1)}")
        return d0, shape

    return check


def ir_attrs(op: OpSpec, given: dict) -> dict[str, AttrValue]:
    """The node's attributes from `given` ({IR name: value}), checked as the eager op checks them; float values are
    stored as float32, as GE stores a Float attribute."""
    torch_values, stored = [], {}
    for attr in op.attrs:
        value = ATTRIBUTE_CONVERSIONS[attr.type](op.op_type, attr.ir, given[attr.ir])
        if attr.type == "str":
            if value not in attr.ir_values:
                raise ValueError(f"{op.op_type}: attribute '{attr.ir}' = {value!r} is invalid: expected one of "
                                 + ", ".join(repr(c) for c in attr.ir_values))
            torch_values.append(attr.choice(value))
        else:
            value = ctypes.c_float(value).value if attr.type == "float" else value
            torch_values.append(value)
        stored[attr.ir] = AttrValue(_KIND[attr.type], value)
    if op.family == "elementwise":  # a row operator's axis is checked against the rank when it runs
        _C.check_attrs(op.op_type, attribute_values(op, torch_values))  # ValueError naming the attribute
    return stored


def torch_attrs(op: OpSpec, attrs: dict[str, AttrValue]) -> list:
    """A node's attributes as torch.ops.actgrad.<op> takes them (spec order, torch's values; defaults filled in)."""
    values = []
    for attr in op.attrs:
        if attr.ir not in attrs:
            if attr.required:
                raise ValueError(f"{op.op_type}: required attribute '{attr.ir}' is missing")
            values.append(attr.default)
            continue
        value = attrs[attr.ir].value
        values.append(attr.choice(value) if attr.type == "str" else value)
    return values


def build(op_type: str, inputs: tuple, attrs: dict):
    """The output of a new `op_type` node on `inputs` (IR order) with `attrs` ({IR name: value})."""
    op = BY_TYPE[op_type]
    return add_node(op.op_type, op.inputs, inputs, infer(op), ir_attrs(op, attrs), op.output)
