"""GE's TensorHolder (ge.es.TensorHolder): one output of a node under construction.

`+ - * /` build Add, Sub, Mul and Div nodes (es.builtins). A Python number operand becomes a scalar constant of the
other operand's data type (a float beside an integer tensor: DT_FLOAT), so that `h * 0.5` keeps h's type; GE makes
every int a DT_INT64 and every float a DT_FLOAT scalar (and its Add/Mul then promote the result's type).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, List

from ..graph._ir import NodeIR, TensorDescIR
from ..graph.types import DataType, Format
from .tensor_like import convert_to_tensor_holder

if TYPE_CHECKING:
    from ..graph.node import Node
    from .graph_builder import GraphBuilder


class TensorHolder:
    def __init__(self):
        raise RuntimeError("TensorHolder objects should not be created directly")

    @classmethod
    def _create_from(cls, node: NodeIR, index: int, owner_builder: "GraphBuilder") -> "TensorHolder":
        instance = cls.__new__(cls)
        instance._node = node
        instance._index = index
        instance._builder = owner_builder
        return instance

    def _desc(self) -> TensorDescIR:
        d = self._node.output_descs[self._index]
        return TensorDescIR(d.data_type, d.shape, d.format)

    def __repr__(self) -> str:
        d = self._node.output_descs[self._index]
        return f"TensorHolder({self._node.name}:{self._index}, {DataType(d.data_type).name}, shape={d.shape})"

    def __bool__(self):
        raise TypeError("a TensorHolder has no truth value (it is a graph tensor, not data)")

    @property
    def name(self) -> str:
        """The name of the node producing this tensor."""
        return self._node.name

    def get_owner_builder(self) -> "GraphBuilder":
        return self._builder

    def _get_node_snapshot(self) -> "Node":
        from ..graph.node import Node  # noqa: PLC0415
        return Node._create_from(self._node, None)

    # ---- descriptor setters (GE's; they change what later consumers of this tensor see) ----
    def _set_desc(self, operation: str, **change) -> "TensorHolder":
        self._builder._check_usable(operation)
        descs = [self._node.output_descs[self._index]]
        if self._node.type == "Data":
            descs += self._node.input_descs
        for d in descs:
            for key, value in change.items():
                setattr(d, key, value)
        return self

    def set_data_type(self, data_type: DataType) -> "TensorHolder":
        if not isinstance(data_type, DataType):
            raise TypeError("Data type must be a DataType enum")
        if self._node.type != "Data":
            raise RuntimeError(f"set_data_type: {self.name} is a {self._node.type} output, whose data type its "
                               "inputs decide; only a graph input's can be set")
        return self._set_desc("set data type", data_type=int(data_type))

    def set_format(self, format: Format) -> "TensorHolder":
        if not isinstance(format, Format):
            raise TypeError("Format must be a Format enum")
        return self._set_desc("set format", format=int(format))

    def set_shape(self, shape: List[int]) -> "TensorHolder":
        from .graph_builder import _input_shape  # noqa: PLC0415
        if not isinstance(shape, list):
            raise TypeError("Shape must be a list of integers")
        if self._node.type != "Data":
            raise RuntimeError(f"set_shape: {self.name} is a {self._node.type} output, whose shape its inputs "
                               "decide; only a graph input's can be set")
        return self._set_desc("set shape", shape=_input_shape(shape))

    # ---- arithmetic ----
    def _operand(self, other, op_name: str) -> "TensorHolder":
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            self._builder._check_usable(op_name)
            return self._builder._scalar_of(other, self._node.output_descs[self._index].data_type)
        other = convert_to_tensor_holder(other, self._builder)
        self._builder._own(other, f"the other operand of {op_name}")
        return other

    def add(self, other) -> "TensorHolder":
        from .builtins import Add  # noqa: PLC0415
        return Add(self, self._operand(other, "add"))

    def sub(self, other) -> "TensorHolder":
        from .builtins import Sub  # noqa: PLC0415
        return Sub(self, self._operand(other, "sub"))

    def mul(self, other) -> "TensorHolder":
        from .builtins import Mul  # noqa: PLC0415
        return Mul(self, self._operand(other, "mul"))

    def div(self, other) -> "TensorHolder":
        from .builtins import Div  # noqa: PLC0415
        return Div(self, self._operand(other, "div"))

    def __add__(self, other):
        return self.add(other)

    def __sub__(self, other):
        return self.sub(other)

    def __mul__(self, other):
        return self.mul(other)

    def __truediv__(self, other):
        return self.div(other)

    # as GE: a reflected + or * builds the node with this tensor first (2 * x is Mul(x, 2))
    def __radd__(self, other):
        return self.add(other)

    def __rsub__(self, other):
        return self._operand(other, "sub").sub(self)

    def __rmul__(self, other):
        return self.mul(other)

    def __rtruediv__(self, other):
        return self._operand(other, "div").div(self)

