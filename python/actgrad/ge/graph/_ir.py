"""The in-memory graph every part of actgrad.ge shares: the builder (es) writes it, Graph/Node wrap it, the Session
runs it and the dumps and the AIR file serialise it. Plain data, no behaviour beyond bookkeeping.

A graph is a list of nodes in the order they were created, which is a topological order (a node can only take
tensors that already exist); `load_from_air` re-sorts a file's nodes topologically on reading.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Attribute kinds, as GE's AttrDef value cases (ge_ir.proto): "s" string, "i" int, "f" float, "b" bool,
# "t" tensor (a ConstTensor), "list_i", "list_f", "list_s", "list_b".
ATTR_KINDS = ("s", "i", "f", "b", "t", "list_i", "list_f", "list_s", "list_b")


@dataclass(frozen=True)
class AttrValue:
    kind: str  # one of ATTR_KINDS
    value: Any  # str / int / float / bool / ConstTensor / tuple of the scalar kind

    def __post_init__(self):
        assert self.kind in ATTR_KINDS, self.kind


@dataclass
class TensorDescIR:
    """One input or output port's tensor: GE's TensorDescriptor. shape None = unknown (GE's -2, unknown rank)."""
    data_type: int  # actgrad.ge.graph.types.DataType value (GE's Python/C++ numbering, not the proto's)
    shape: tuple[int, ...] | None
    format: int = 2  # Format.FORMAT_ND


@dataclass
class ConstTensor:
    """A constant's value: a torch tensor on the CPU, with GE's dtype and format."""
    data: Any  # torch.Tensor
    data_type: int
    format: int = 2


@dataclass(eq=False)
class NodeIR:
    name: str  # unique in its graph
    type: str  # GE OpType: "Data", "Const", "Add", ..., "ActgradHardtanhGrad"
    inputs: list[tuple["NodeIR", int]] = field(default_factory=list)  # input port k <- (source node, its output)
    input_names: list[str] = field(default_factory=list)  # IR names of the input ports
    input_descs: list[TensorDescIR] = field(default_factory=list)
    output_names: list[str] = field(default_factory=list)
    output_descs: list[TensorDescIR] = field(default_factory=list)
    attrs: dict[str, AttrValue] = field(default_factory=dict)  # a Data node: "index" (i); a Const: "value" (t)


@dataclass(eq=False)
class GraphIR:
    name: str
    nodes: list[NodeIR] = field(default_factory=list)
    outputs: list[tuple[NodeIR, int]] = field(default_factory=list)  # graph output k <- (node, its output)
    attrs: dict[str, AttrValue] = field(default_factory=dict)
    graph_id: int = 0  # GE's ComputeGraph graph id: 0 until Session.add_graph(graph_id, ...) sets it; names dump files

    def inputs(self) -> list[NodeIR]:
        """The Data nodes, by their "index" attribute."""
        return sorted((n for n in self.nodes if n.type == "Data"), key=lambda n: n.attrs["index"].value)
