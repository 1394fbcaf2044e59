"""Adding one operator node: operands resolved to TensorHolders of one builder, the node's output inferred (which
validates the operands), then appended. Shared by the built-ins and the actgrad operators."""
from __future__ import annotations

from collections.abc import Callable

from ..graph._ir import AttrValue, TensorDescIR
from .tensor_like import convert_to_tensor_holder, resolve_builder

# infer(who, [(data type, shape) of each input], attrs) -> (data type, shape) of the output; errors start with `who`
Infer = Callable[[str, list, dict], tuple]


def add_node(op_type: str, input_names: tuple[str, ...], values: tuple, infer: Infer, attrs: dict[str, AttrValue],
             output_name: str):
    builder = resolve_builder(*values)
    builder._check_usable(f"add a {op_type} node")
    tensors = [builder._own(convert_to_tensor_holder(v, builder), f"{op_type}: {n}")
               for n, v in zip(input_names, values)]
    ins = [(t._desc().data_type, t._desc().shape) for t in tensors]
    data_type, shape = infer(op_type, ins, attrs)
    out = TensorDescIR(data_type, shape)
    return builder._add_node(op_type, tensors, list(input_names), [output_name], [out], attrs)[0]
