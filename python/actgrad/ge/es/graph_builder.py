"""GE's GraphBuilder (ge.es.GraphBuilder): builds a GraphIR node by node, validating each node as it is added (shape
and data type inference, attributes), where GE would only find the error when the graph is compiled."""
from __future__ import annotations

import math
from enum import Enum
from typing import List, Optional, Union

import torch

from ..graph._dtypes import FLOATING, to_torch
from ..graph._ir import AttrValue, ConstTensor, GraphIR, NodeIR, TensorDescIR
from ..graph.graph import Graph
from ..graph.types import DataType, Format
from .tensor_holder import TensorHolder


class InputType(Enum):
    DATA = "Data"
    REF_DATA = "RefData"
    AIPP_DATA = "AippData"
    ANY_DATA = "AnyData"


def _is_int(value) -> bool:
    """An int that is not a bool (bool is an int subclass, and True is no count, index or dim)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _input_shape(shape) -> tuple[int, ...] | None:
    """create_input's shape as the IR holds it. None (and GE's [-2]) is an unknown shape: the input takes the shape
    of the tensor fed at run time; -1 is an unknown dim."""
    if shape is None or shape == [-2]:
        return None
    if not isinstance(shape, list) or not all(_is_int(d) for d in shape):
        raise TypeError("Shape must be a list of integers")
    if any(d < -1 for d in shape):
        raise ValueError(f"shape {shape}: a dim is >= 0, or -1 (unknown)")
    return tuple(shape)


class GraphBuilder:
    """Builds one graph; build_and_reset() returns it and retires the builder.

    Example:
        >>> builder = GraphBuilder("my_graph")
        >>> x = builder.create_input(0, shape=[2, 3])
        >>> builder.set_graph_output(x * 2.0, 0)
        >>> graph = builder.build_and_reset()
    """

    def __init__(self, name: Optional[str] = None) -> None:
        if name is not None and not isinstance(name, str):
            raise TypeError("Graph name must be a string")
        self._name = name or "graph"
        self._ir = GraphIR(self._name)
        self._names: set[str] = set()
        self._type_counts: dict[str, int] = {}
        self._input_indices: set[int] = set()
        self._outputs: dict[int, tuple[NodeIR, int]] = {}
        self._is_built = False

    def __copy__(self):
        raise RuntimeError("GraphBuilder does not support copy")

    def __deepcopy__(self, memodict):
        raise RuntimeError("GraphBuilder does not support deepcopy")

    @property
    def name(self) -> str:
        return self._name

    def _check_usable(self, operation: str) -> None:
        if self._is_built:
            raise RuntimeError(f"Cannot {operation}: GraphBuilder has already been built. "
                               "Create a new GraphBuilder to build another graph.")

    def _unique_name(self, op_type: str) -> str:
        while True:
            count = self._type_counts.get(op_type, 0)
            self._type_counts[op_type] = count + 1
            name = f"{op_type}_{count}"
            if name not in self._names:
                return name

    def _add_node(self, op_type: str, inputs: list[TensorHolder], input_names: list[str], output_names: list[str],
                  output_descs: list[TensorDescIR], attrs: dict[str, AttrValue], name: str | None = None,
                  input_descs: list[TensorDescIR] | None = None) -> list[TensorHolder]:
        """Append a node reading `inputs` (TensorHolders of this builder, already validated) and return its outputs."""
        self._check_usable(f"add a {op_type} node")
        name = name or self._unique_name(op_type)
        if name in self._names:
            raise ValueError(f"a node named {name!r} already exists in graph {self._name!r}")
        node = NodeIR(name, op_type, inputs=[(t._node, t._index) for t in inputs], input_names=list(input_names),
                      input_descs=input_descs if input_descs is not None else [t._desc() for t in inputs],
                      output_names=list(output_names), output_descs=output_descs, attrs=attrs)
        self._names.add(name)
        self._ir.nodes.append(node)
        return [TensorHolder._create_from(node, k, self) for k in range(len(output_names))]

    def _own(self, tensor: TensorHolder, what: str) -> TensorHolder:
        """tensor, checked to be a usable TensorHolder of this builder; `what` names the argument in errors."""
        if not isinstance(tensor, TensorHolder):
            raise TypeError(f"{what} must be a TensorHolder, got {type(tensor).__name__}")
        if tensor._builder is not self:
            raise ValueError(f"{what} belongs to GraphBuilder {tensor._builder.name!r}, not {self._name!r}: "
                             "a graph can only use tensors of its own builder")
        self._check_usable(f"use {what}")
        return tensor

    # ---- inputs ----
    def create_input(self, index: int, *, name: Optional[str] = None, type_str: Optional[InputType] = InputType.DATA,
                     data_type: Optional[DataType] = DataType.DT_FLOAT, format: Optional[Format] = Format.FORMAT_ND,
                     shape: Optional[List[int]] = None) -> TensorHolder:
        """Graph input `index` (a Data node named `name`, default "input_<index>"). shape None: unknown, the input
        takes the shape of the tensor fed at run time (GE documents None as a scalar; pass [] for one)."""
        self._check_usable("create input")
        if not _is_int(index):
            raise TypeError("Input index must be an integer")
        if index < 0:
            raise ValueError(f"Input index must be >= 0, got {index}")
        if index in self._input_indices:
            raise ValueError(f"graph {self._name!r} already has input {index}")
        if type_str != InputType.DATA:
            raise ValueError(f"type_str {type_str!r}: only InputType.DATA inputs are supported here")
        if not isinstance(data_type, DataType):
            raise TypeError(f"data_type must be a DataType, got {data_type!r}")
        to_torch(data_type, f"create_input {name or index}: data_type")
        if not isinstance(format, Format):
            raise TypeError(f"format must be a Format, got {format!r}")
        if name is not None and not isinstance(name, str):
            raise TypeError("Input name must be a string")
        desc = TensorDescIR(int(data_type), _input_shape(shape), int(format))
        holder, = self._add_node("Data", [], ["x"], ["y"], [desc], {"index": AttrValue("i", index)},
                                 name=name or f"input_{index}", input_descs=[TensorDescIR(desc.data_type, desc.shape,
                                                                                          desc.format)])
        self._input_indices.add(index)
        return holder

    def create_inputs(self, num: int, start_index: int = 0) -> List[TensorHolder]:
        """`num` DT_FLOAT inputs of unknown shape, indices start_index, start_index + 1, ..."""
        self._check_usable("create inputs")
        if not _is_int(num) or num <= 0:
            raise TypeError("Number of inputs must be a positive integer")
        if not _is_int(start_index) or start_index < 0:
            raise TypeError("Start index must be a non-negative integer")
        return [self.create_input(i) for i in range(start_index, start_index + num)]

    # ---- constants ----
    def _create_const(self, value: torch.Tensor, data_type: DataType) -> TensorHolder:
        self._check_usable("create constant")
        desc = TensorDescIR(int(data_type), tuple(value.shape))
        holder, = self._add_node("Const", [], [], ["y"], [desc],
                                 {"value": AttrValue("t", ConstTensor(value, int(data_type)))})
        return holder

    def _scalar_of(self, value: Union[int, float], data_type: int) -> TensorHolder:
        """A Python number as a scalar constant of `data_type` (a float into an integer type: DT_FLOAT, as GE)."""
        if isinstance(value, float) and data_type not in FLOATING:
            data_type = DataType.DT_FLOAT
        return self._create_const(torch.tensor(value, dtype=to_torch(data_type, "constant")), DataType(data_type))

    def _const(self, value, shape, data_type: DataType, kinds: tuple, kind_name: str) -> TensorHolder:
        if isinstance(value, bool) or not isinstance(value, (*kinds, list)):
            raise TypeError(f"Value must be {kind_name} or list of {kind_name}s")
        if isinstance(value, list) and not all(isinstance(v, kinds) and not isinstance(v, bool) for v in value):
            raise TypeError(f"Value must be {kind_name} or list of {kind_name}s")
        values = value if isinstance(value, list) else [value]
        if shape is not None and (not isinstance(shape, list) or not all(_is_int(d) and d >= 0 for d in shape)):
            raise TypeError("Shape must be a list of non-negative integers")
        dims = shape if shape is not None else ([len(value)] if isinstance(value, list) else [])
        if len(values) != math.prod(dims):
            raise ValueError(f"Value count ({len(values)}) doesn't match shape {dims} "
                             f"(expected {math.prod(dims)} elements)")
        return self._create_const(torch.tensor(values, dtype=to_torch(data_type, "constant")).reshape(dims), data_type)

    def create_const_float(self, value: Union[float, List[float]], shape: Optional[List[int]] = None) -> TensorHolder:
        """A DT_FLOAT constant (values rounded to float32); shape None: a scalar, or [len(value)] for a list."""
        return self._const(value, shape, DataType.DT_FLOAT, (int, float), "a float")

    def create_const_int64(self, value: Union[int, List[int]], shape: Optional[List[int]] = None) -> TensorHolder:
        return self._const(value, shape, DataType.DT_INT64, (int,), "an integer")

    def create_const_int32(self, value: Union[int, List[int]], shape: Optional[List[int]] = None) -> TensorHolder:
        return self._const(value, shape, DataType.DT_INT32, (int,), "an integer")

    def create_vector_int64(self, value: List[int]) -> TensorHolder:
        if not isinstance(value, list) or not all(_is_int(v) for v in value):
            raise TypeError("Value must be a list of integers")
        return self.create_const_int64(value, shape=[len(value)])

    def create_scalar_float(self, value: float) -> TensorHolder:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("Value must be a number")
        return self._scalar_of(float(value), DataType.DT_FLOAT)

    def create_scalar_int64(self, value: int) -> TensorHolder:
        if not _is_int(value):
            raise TypeError("Value must be an integer")
        return self._scalar_of(value, DataType.DT_INT64)

    def create_scalar_int32(self, value: int) -> TensorHolder:
        if not _is_int(value):
            raise TypeError("Value must be an integer")
        if not -2**31 <= value < 2**31:
            raise ValueError(f"Value {value} does not fit int32")
        return self._scalar_of(value, DataType.DT_INT32)

    # ---- outputs ----
    def set_graph_output(self, tensor: TensorHolder, output_index: int) -> None:
        self._check_usable("set graph output")
        if not isinstance(tensor, TensorHolder):
            raise TypeError("Tensor must be a TensorHolder")
        if not _is_int(output_index):
            raise TypeError("Output index must be an integer")
        if output_index < 0:
            raise ValueError(f"Output index must be >= 0, got {output_index}")
        self._own(tensor, "tensor")
        if output_index in self._outputs:
            raise RuntimeError(f"Failed to set graph output for graph {self._name} output index {output_index}: "
                               "it is already set")
        self._outputs[output_index] = (tensor._node, tensor._index)

    def build_and_reset(self, outputs: Optional[List[TensorHolder]] = None) -> Graph:
        """The graph; outputs, if given, become graph outputs 0, 1, ... The builder cannot be used afterwards."""
        self._check_usable("build_and_reset")
        if outputs is not None:
            if not isinstance(outputs, list):
                raise TypeError("Outputs must be a list")
            if not all(isinstance(t, TensorHolder) for t in outputs):
                raise TypeError("All outputs must be TensorHolder objects")
            for i, tensor in enumerate(outputs):
                self.set_graph_output(tensor, i)
        missing = [i for i in range(len(self._outputs)) if i not in self._outputs]
        if missing:
            raise RuntimeError(f"Failed to build graph {self._name}: graph output indices {sorted(self._outputs)} "
                               f"skip index {missing[0]}; outputs must be numbered 0, 1, ... without gaps")
        self._ir.outputs = [self._outputs[i] for i in range(len(self._outputs))]
        self._is_built = True
        return Graph._create_from(self._ir)

