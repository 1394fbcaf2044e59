"""actgrad.ge.graph: GE's graph module (ge.graph) on the twin: Graph, Node, Tensor, DataType, Format, Placement,
DumpFormat (loaded with the serialisers on first use)."""
from .graph import Graph
from .node import Node
from .tensor import Tensor
from .types import DataType, Format, Placement

__all__ = ["Graph", "Node", "Tensor", "DataType", "Format", "Placement", "DumpFormat"]


def __getattr__(name: str):
    if name == "DumpFormat":
        from ._dump import DumpFormat  # noqa: PLC0415
        return DumpFormat
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
