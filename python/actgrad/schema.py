"""The torch schemas of the operators and the attribute list the C++ side takes, both derived from the spec."""
from __future__ import annotations

import math
import sys
from collections.abc import Sequence

from .spec import Attr, OpSpec

NAMESPACE = "actgrad"

# torch's schema parser has no literal for infinity; the largest double stands in for +-inf in a default and
# attribute_values() turns it back into inf (after the f32 rounding the kernel applies, the two are the same).
SCHEMA_INF = sys.float_info.max


def _schema_default(attr: Attr) -> str:
    if attr.type == "bool":
        return repr(bool(attr.default))
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


def attribute_values(op: OpSpec, given: Sequence[float | bool]) -> list[float]:
    """The attributes as _C takes them: spec order, bools as 0.0/1.0, defaults filled in.

    The dispatcher drops trailing arguments that equal their schema default before calling a Python kernel,
    so `given` may be shorter than op.attrs.
    """
    values = []
    for i, attr in enumerate(op.attrs):
        value = float(given[i] if i < len(given) else attr.default)
        # only an attribute whose default is infinite can carry the stand-in; elsewhere DBL_MAX is a real value
        if attr.type == "float" and attr.default is not None and math.isinf(attr.default) and abs(value) == SCHEMA_INF:
            value = math.copysign(math.inf, value)
        values.append(value)
    return values
