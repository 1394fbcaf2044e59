"""GE's Node (ge.graph.Node): a view of one NodeIR of a graph."""
from __future__ import annotations

from typing import Any, List, Tuple

from ._ir import GraphIR, NodeIR


class Node:
    def __init__(self) -> None:
        raise RuntimeError("Node objects should not be created directly.")

    @classmethod
    def _create_from(cls, node: NodeIR, graph: GraphIR | None) -> "Node":
        """graph: the GraphIR the node belongs to (None while its builder is still building: no consumers known)."""
        instance = cls.__new__(cls)
        instance._node = node
        instance._graph = graph
        return instance

    def __copy__(self):
        raise RuntimeError("Node does not support copy")

    def __deepcopy__(self, memodict):
        raise RuntimeError("Node does not support deepcopy")

    def __repr__(self) -> str:
        return f"Node(name={self.name!r}, type={self.type!r})"

    @property
    def name(self) -> str:
        return self._node.name

    @property
    def type(self) -> str:
        return self._node.type

    def get_inputs_size(self) -> int:
        return len(self._node.input_names)

    def get_outputs_size(self) -> int:
        return len(self._node.output_names)

    def get_in_data_nodes_and_port_indexes(self, in_index: int) -> Tuple["Node", int]:
        """(the node feeding input `in_index`, its output index); RuntimeError when nothing feeds it."""
        if not isinstance(in_index, int):
            raise TypeError("Input index must be an integer")
        if not 0 <= in_index < len(self._node.inputs):
            raise RuntimeError(f"Failed to get input data node for index {in_index}")
        source, port = self._node.inputs[in_index]
        return Node._create_from(source, self._graph), port

    def get_out_data_nodes_and_port_indexes(self, out_index: int) -> List[Tuple["Node", int]]:
        """[(a node reading output `out_index`, its input index)], in graph order."""
        if not isinstance(out_index, int):
            raise TypeError("Output index must be an integer")
        if not 0 <= out_index < len(self._node.output_names) or self._graph is None:
            raise RuntimeError(f"Failed to get output data node for index {out_index}")
        return [(Node._create_from(n, self._graph), k) for n in self._graph.nodes
                for k, (source, port) in enumerate(n.inputs) if source is self._node and port == out_index]

    def has_attr(self, attr_name: str) -> bool:
        if not isinstance(attr_name, str):
            raise TypeError("attr_name must be a string")
        return attr_name in self._node.attrs

    def get_attr(self, key: str) -> Any:
        """The attribute's value: int, float, bool, str, a list of them, or a Tensor (a Const's "value")."""
        if not isinstance(key, str):
            raise TypeError("Attribute key must be a string")
        attr = self._node.attrs.get(key)
        if attr is None:
            raise RuntimeError(f"Failed to get attribute '{key}' from Node")
        if attr.kind == "t":
            from .tensor import Tensor  # noqa: PLC0415
            return Tensor._create_from(attr.value.data, attr.value.format)
        return list(attr.value) if attr.kind.startswith("list_") else attr.value
