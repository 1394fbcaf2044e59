"""actgrad.ge.graph: GE's graph module (ge.graph) on the twin: Graph, Node, Tensor, DataType, Format, Placement,
DumpFormat."""
from .graph import DumpFormat, Graph
from .node import Node
from .tensor import Tensor
from .types import DataType, Format, Placement

__all__ = ["Graph", "Node", "Tensor", "DataType", "Format", "Placement", "DumpFormat"]
