"""The public Python functions, one per operator, built from the spec.

Each forwards to torch.ops.actgrad.<op> (or .out when out= is given), which binds the arguments by the schema;
the Python signature (inspect.signature, help()) shows the spec's defaults, inf included.
"""
from __future__ import annotations

import inspect

import torch

from .spec import OPS, OpSpec

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
        args.append(f"    {a.name} ({a.type}, {default}): {a.doc}.")
    args.append(f"    out (Tensor, optional): receives the result; same shape/dtype/device as the inputs. "
                f"May be {op.grad} itself (in-place).")
    return "\n".join([
        f"{op.op_type}: {op.formula}.",
        "",
        "Args:",
        *args,
        "",
        f"Dtypes: {', '.join(op.dtypes)}, one for all tensors (float16/bfloat16 computed in float32).",
        f"Divergences: {op.divergences}",
        f"Origin: {op.origin}. torch op: torch.ops.actgrad.{op.name}; GE IR: {op.op_type}.",
    ])


def _public_function(op: OpSpec):
    packet = getattr(torch.ops.actgrad, op.name)

    def function(*args, out=None, **kwargs):
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
