"""The torch schemas of the operators and what the C++ side takes (the attribute list of a call, the spec entry its
kernels are registered with), all derived from the spec."""
from __future__ import annotations

import math
import sys
from collections.abc import Sequence

from .spec import DTYPES, MAX_RANK, Attr, OpSpec

NAMESPACE = "actgrad"

# torch's schema parser has no literal for infinity; the largest double stands in for +-inf in a default and
# attribute_values() turns it back into inf (after the f32 rounding the kernel applies, the two are the same).
SCHEMA_INF = sys.float_info.max


def _schema_default(attr: Attr) -> str:
    if attr.type == "bool":
        return repr(bool(attr.default))
    if attr.type in ("str", "int"):
        return repr(attr.default)
    value = float(attr.default)
    if math.isinf(value):
        value = math.copysign(SCHEMA_INF, value)
    return repr(value)


def _arguments(op: OpSpec) -> str:
    args = [f"Tensor {name}" for name in op.inputs]
    for attr in op.attrs:
        decl = f"{attr.type} {attr.name}"
        args.append(decl if attr.required else f"{decl}={_schema_default(attr)}")
    return ", ".join(args)


def functional_schema(op: OpSpec) -> str:
    return f"{op.name}({_arguments(op)}) -> Tensor"


def out_schema(op: OpSpec) -> str:
    # Returns nothing: torch.compile can only functionalize a custom op whose outputs alias no input, and torchair
    # likewise wants a mutated argument that is not returned. The Python function returns `out` itself.
    return f"{op.name}.out({_arguments(op)}, *, Tensor(a!) out) -> ()"


def has_infinite_default(attr: Attr) -> bool:
    """Whether the schema default of `attr` is the stand-in SCHEMA_INF (which then means +-inf)."""
    return attr.type == "float" and attr.default is not None and math.isinf(attr.default)


def invalid_choice(op: OpSpec, attr: Attr, value) -> str:
    """The error of a str attribute given a value outside its choices (op_host/torch_kernels.cpp words it alike)."""
    return (f"{op.op_type}: attribute '{attr.name}' = {value!r} is invalid: expected one of "
            + ", ".join(repr(c) for c in attr.choices))


def choice_index(op: OpSpec, attr: Attr, value: str) -> float:
    """A str attribute as the C++ side takes it: the index of its value in attr.choices (ValueError if none)."""
    if value not in attr.choices:
        raise ValueError(invalid_choice(op, attr, value))
    return float(attr.choices.index(value))


def attribute_values(op: OpSpec, given: Sequence[float | bool | str]) -> list[float]:
    """The attributes as _C takes them: spec order, bools as 0.0/1.0, str values as their index in the attribute's
    choices, ints (a row operator's axis, as given: unwrapped) as floats, defaults filled in.

    The dispatcher drops trailing arguments that equal their schema default before calling a Python kernel,
    so `given` may be shorter than op.attrs.
    """
    values = []
    for i, attr in enumerate(op.attrs):
        value = given[i] if i < len(given) else attr.default
        if attr.type == "str":
            values.append(choice_index(op, attr, value))
            continue
        if attr.type == "int":
            values.append(float(value))
            continue
        value = float(value)
        # only an attribute whose default is infinite can carry the stand-in; elsewhere DBL_MAX is a real value
        if has_infinite_default(attr) and abs(value) == SCHEMA_INF:
            value = math.copysign(math.inf, value)
        values.append(value)
    return values


def kernel_spec(op: OpSpec) -> tuple:
    """The arguments of _C.register_twin_kernels and actgrad._npu.register_kernels after the namespace; each attribute
    as (name, type, infinite_default, choices), choices empty but for str attributes; then the IR index of the input
    whose layout decides the result's strides first, and whether the op is a row reduction along its axis attribute."""
    attrs = [(a.name, a.type, has_infinite_default(a), list(a.choices)) for a in op.attrs]
    return (op.name, op.op_type, list(op.inputs), op.saved_index, attrs, list(DTYPES), MAX_RANK, op.layout_first_index,
            op.family == "row")
