"""The public Python functions, one per operator, built from the spec.

Each forwards to torch.ops.actgrad.<op> (or .out when out= is given), which binds the arguments by the schema;
the Python signature (inspect.signature, help()) shows the spec's defaults, inf included.

The functions take their attributes more strictly than torch's schema parser (which reads any object with a truth
value as a bool, None as False, and a one-element tensor as a float), with a TypeError naming the argument:
- a bool attribute takes True or False, or the int 0 or 1;
- a str attribute takes a str, one of the attribute's values (another str is a ValueError naming it);
- a float attribute takes a real number: an int or a float (NumPy integer and floating scalars included), never a
  bool, a tensor (pass tensor.item()), None, a str or a complex number. An int too large for a double is a
  ValueError. The value is then rounded to float32 and validated like any attribute (README: float attributes).
Under tracing, torch.SymFloat/SymInt (float) and torch.SymBool (bool) pass through.
"""
from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable

import torch

from .spec import OPS, OpSpec


def short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(value) -> str:
    kind = type(value)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    if isinstance(value, torch.Tensor):
        return f"a Tensor of shape {list(value.shape)}"
    return f"{name} {short_repr(value)}"


def float_attribute(fn: str, name: str, value):
    """`value` as the float attribute `name` of `fn`, or TypeError/ValueError naming it."""
    if type(value) is float:
        return value
    if isinstance(value, (torch.SymFloat, torch.SymInt)):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise ValueError(f"{fn}: {name}={short_repr(value)} does not fit a float") from None
    hint = "; pass a Python number (tensor.item())" if isinstance(value, torch.Tensor) else ""
    raise TypeError(f"{fn}: {name} must be a real number (int or float), got {_describe(value)}{hint}")


def bool_attribute(fn: str, name: str, value):
    """`value` as the bool attribute `name` of `fn`, or TypeError naming it."""
    if value is True or value is False:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)
    if isinstance(value, torch.SymBool):
        return value
    raise TypeError(f"{fn}: {name} must be True or False (or the int 0 or 1), got {_describe(value)}")


def str_attribute(fn: str, name: str, value):
    """`value` as the str attribute `name` of `fn`, or TypeError naming it (the value itself is checked against the
    attribute's choices where every call's attributes are, with a ValueError)."""
    if isinstance(value, str):
        return value
    raise TypeError(f"{fn}: {name} must be a str, got {_describe(value)}")


def int_attribute(fn: str, name: str, value):
    """`value` as the int attribute `name` of `fn` (a row operator's axis), or TypeError naming it."""
    if type(value) is int or isinstance(value, torch.SymInt):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    raise TypeError(f"{fn}: {name} must be an int, got {_describe(value)}")


ATTRIBUTE_CONVERSIONS = {"float": float_attribute, "bool": bool_attribute, "str": str_attribute, "int": int_attribute}


def attribute_checker(op: OpSpec) -> Callable[[tuple, dict], tuple[tuple, dict]]:
    """check(args, kwargs) -> (args, kwargs): the call's attributes (positional after the two tensors, or by
    keyword) checked and converted; the rest of the binding is the schema's."""
    fn = f"actgrad.{op.name}"
    slots = [(2 + i, a.name, ATTRIBUTE_CONVERSIONS[a.type]) for i, a in enumerate(op.attrs)]

    def check(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        converted = None
        for position, name, convert in slots:
            if position < len(args):
                value = args[position]
                new = convert(fn, name, value)
                if new is not value:
                    converted = converted or list(args)
                    converted[position] = new
            elif name in kwargs:
                kwargs[name] = convert(fn, name, kwargs[name])
        return (tuple(converted) if converted else args), kwargs

    return check

def signature(op: OpSpec) -> inspect.Signature:
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter(name, positional) for name in op.inputs]
    params += [inspect.Parameter(a.name, positional, default=inspect.Parameter.empty if a.required else a.default)
               for a in op.attrs]
    params.append(inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    return inspect.Signature(params)


def docstring(op: OpSpec) -> str:
    tensors = {op.saved: f"    {op.saved} (Tensor): the saved forward tensor: {op.forward_tensor}.",
               op.grad: f"    {op.grad} (Tensor): the incoming gradient."}
    args = [tensors[name] for name in op.inputs]
    for a in op.attrs:
        default = "required" if a.required else f"default {a.default!r}"
        values = f" One of {', '.join(repr(c) for c in a.choices)}." if a.choices else ""
        args.append(f"    {a.name} ({a.type}, {default}): {a.doc}.{values}")
    args.append(f"    out (Tensor, optional): receives the result; same shape/dtype/device as the inputs. "
                f"May be {op.grad} itself (in-place).")
    return "\n".join([
        f"{op.op_type}: {op.formula}.",
        "",
        "Args:",
        *args,
        "",
        "A float attribute takes an int or a float (NumPy real scalars too) and is rounded to float32; a bool one "
        "True or False (or 0/1); a str one a str; an int one an int; anything else is a TypeError naming it.",
        (f"The result has the strides ATen gives a binary elementwise op on ({op.grad}, {op.saved}): channels_last "
         "inputs give a channels_last result." if op.family == "elementwise" else
         f"The result is contiguous, as ATen's; axis is wrapped as ATen wraps a dim (IndexError when out of range)."),
        f"Dtypes: {', '.join(op.dtypes)}, one for all tensors (float16/bfloat16 computed in float32).",
        f"Divergences: {op.divergences}",
        f"Origin: {op.origin}. torch op: torch.ops.actgrad.{op.name}; GE IR: {op.op_type}.",
    ])


def _public_function(op: OpSpec):
    packet = getattr(torch.ops.actgrad, op.name)
    check = attribute_checker(op)

    def function(*args, out=None, **kwargs):
        if len(args) > 2 or kwargs:
            args, kwargs = check(args, kwargs)
        if out is None:
            return packet.default(*args, **kwargs)
        packet.out(*args, **kwargs, out=out)
        return out

    function.__name__ = function.__qualname__ = op.name
    function.__module__ = "actgrad"
    function.__signature__ = signature(op)
    function.__doc__ = docstring(op)
    return function


PUBLIC_FUNCTIONS = {op.name: _public_function(op) for op in OPS}
