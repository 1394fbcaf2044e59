"""GE's Graph (ge.graph.Graph), wrapping the in-memory GraphIR.

The dumps and the AIR file are written by graph/_dump.py and graph/_air.py, imported on first use (they load onnx and
protobuf, a second and a half that building and running a graph do not need).
"""
from __future__ import annotations

from enum import Enum
from typing import List, Optional

from ._ir import GraphIR
from .node import Node


class DumpFormat(Enum):
    """GE's graph dump formats (ge.graph.DumpFormat)."""
    kOnnx = 0
    kTxt = 1
    kReadable = 2


def _check_format(format: DumpFormat) -> None:
    if format not in list(DumpFormat):
        raise TypeError("Format must be in [DumpFormat.kOnnx, DumpFormat.kTxt, DumpFormat.kReadable]")


class Graph:
    def __init__(self, name: Optional[str] = "graph") -> None:
        if not isinstance(name, str):
            raise TypeError("Graph name must be a string")
        self._ir = GraphIR(name)

    @classmethod
    def _create_from(cls, ir: GraphIR) -> "Graph":
        instance = cls.__new__(cls)
        instance._ir = ir
        return instance

    def __copy__(self):
        raise RuntimeError("Graph does not support copy")

    def __deepcopy__(self, memodict):
        raise RuntimeError("Graph does not support deepcopy")

    def __str__(self) -> str:
        return self.dump_to_stream()

    @property
    def name(self) -> str:
        return self._ir.name

    def get_all_nodes(self) -> List[Node]:
        """Every node, in graph (topological) order."""
        return [Node._create_from(n, self._ir) for n in self._ir.nodes]

    def get_direct_nodes(self) -> List[Node]:
        """The nodes of this graph itself; with no subgraphs here, the same as get_all_nodes()."""
        return self.get_all_nodes()

    def find_node_by_name(self, name: str) -> Node:
        """The node called `name`; RuntimeError if there is none (as GE)."""
        if not isinstance(name, str):
            raise TypeError("name must be a string")
        for n in self._ir.nodes:
            if n.name == name:
                return Node._create_from(n, self._ir)
        raise RuntimeError(f"Failed to find Node name {name}")

    def dump_to_file(self, format: DumpFormat = DumpFormat.kReadable, suffix: str = "") -> None:
        """Write the graph in `format` to $DUMP_GRAPH_PATH or the working directory,
        under GE's file name (ge_<onnx|txt|readable>_..._<suffix>)."""
        if not isinstance(suffix, str):
            raise TypeError("Suffix must be a string")
        _check_format(format)
        from . import _dump  # noqa: PLC0415
        _dump.dump_to_file(self._ir, format, suffix)

    def dump_to_stream(self, format: DumpFormat = DumpFormat.kReadable) -> str:
        """The graph in `format` as a str."""
        _check_format(format)
        from . import _dump  # noqa: PLC0415
        return _dump.dump_to_stream(self._ir, format)

    def save_to_air(self, file_path: str) -> None:
        """Write the graph as GE's serialised graph (ge.proto ModelDef), readable by GE and ATC."""
        if not isinstance(file_path, str):
            raise TypeError("file_path must be a string")
        from . import _air  # noqa: PLC0415
        _air.save_to_air(self._ir, file_path)

    def load_from_air(self, file_path: str) -> None:
        """Replace this graph's content with the graph of an AIR file (name, nodes, outputs)."""
        if not isinstance(file_path, str):
            raise TypeError("file_path must be a string")
        from . import _air  # noqa: PLC0415
        self._ir = _air.load_from_air(file_path)
