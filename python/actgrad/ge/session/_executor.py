"""Running a GraphIR on the twin: nodes in graph (topological) order, each actgrad node as its kernel
(torch.ops.actgrad.<name>, the twin with the eager path's tiling and SoC profile), the GE built-ins with torch on the
host. Each node's inputs are re-inferred from the tensors actually present, so a shape left unknown at build time is
checked here with the builder's messages. A value is dropped as soon as its last reader has run."""
from __future__ import annotations

import torch

from ...spec import BY_TYPE
from ..graph._dtypes import GE_DTYPES, dtype_name, to_torch
from .._shapes import accepts, show
from ..es._actgrad_node import infer as actgrad_infer
from ..es._actgrad_node import torch_attrs
from ..es.builtins import BUILTINS
from ..graph._ir import GraphIR, NodeIR


def check_runnable(graph: GraphIR) -> None:
    """ValueError naming the first node a Session cannot run."""
    for node in graph.nodes:
        if node.type not in ("Data", "Const") and node.type not in BUILTINS and node.type not in BY_TYPE:
            raise ValueError(f"node {node.name} has type {node.type}, which the twin cannot run (it runs Data, Const, "
                             f"{', '.join(BUILTINS)} and the actgrad operators)")


def _check_feed(node: NodeIR, value: torch.Tensor) -> None:
    desc = node.output_descs[0]
    if value.device.type != "cpu":
        raise ValueError(f"input {node.attrs['index'].value} ({node.name}) is a tensor on {value.device}; the twin "
                         "runs CPU tensors")
    if GE_DTYPES.get(value.dtype) != desc.data_type:
        raise TypeError(f"input {node.attrs['index'].value} ({node.name}) is declared {dtype_name(desc.data_type)} "
                        f"but was fed a {value.dtype} tensor")
    if not accepts(desc.shape, tuple(value.shape)):
        raise ValueError(f"input {node.attrs['index'].value} ({node.name}) is declared with shape {show(desc.shape)} "
                         f"but was fed shape {list(value.shape)}")


def _compute(node: NodeIR, args: list) -> torch.Tensor:
    who = f"{node.type} node {node.name}"
    ins = [(GE_DTYPES.get(a.dtype), tuple(a.shape)) for a in args]
    if node.type in BY_TYPE:
        op = BY_TYPE[node.type]
        actgrad_infer(op)(who, ins, node.attrs)
        return getattr(torch.ops.actgrad, op.name).default(*args, *torch_attrs(op, node.attrs))
    builtin = BUILTINS[node.type]
    data_type, _ = builtin.infer(who, ins, node.attrs)
    return builtin.host(args, node.attrs, to_torch(data_type, who))


@torch.no_grad()  # a session computes values, as GE's: fed tensors that require grad record no autograd graph
def run(graph: GraphIR, feeds: list[torch.Tensor]) -> list[torch.Tensor]:
    """The graph's outputs for `feeds` (torch tensors, by input index)."""
    data_nodes = graph.inputs()
    if len(feeds) != len(data_nodes):
        raise ValueError(f"graph {graph.name} has {len(data_nodes)} inputs, {len(feeds)} were fed")
    fed = {}
    for node in data_nodes:
        index = node.attrs["index"].value
        if not 0 <= index < len(feeds):
            raise ValueError(f"input {node.name} has index {index}; graph {graph.name} takes indices 0.."
                             f"{len(feeds) - 1}")
        _check_feed(node, feeds[index])
        fed[id(node)] = feeds[index]

    # the position of the last node reading each value; graph outputs are kept to the end
    last_use: dict[tuple[int, int], int] = {}
    for position, node in enumerate(graph.nodes):
        for source, port in node.inputs:
            last_use[(id(source), port)] = position
    for source, port in graph.outputs:
        last_use[(id(source), port)] = len(graph.nodes)

    values: dict[tuple[int, int], torch.Tensor] = {}
    for position, node in enumerate(graph.nodes):
        key = (id(node), 0)
        if key not in last_use:
            continue  # nothing reads it
        if node.type == "Data":
            values[key] = fed[id(node)]
        elif node.type == "Const":
            values[key] = node.attrs["value"].value.data
        else:
            args = [values[(id(source), port)] for source, port in node.inputs]
            values[key] = _compute(node, args)
            for source, port in node.inputs:
                if last_use[(id(source), port)] == position:
                    values.pop((id(source), port), None)
            del args
    # every output is a tensor of its own, as GE's: a graph input, a constant or a value already returned is copied
    outputs, returned = [], set()
    for n, p in graph.outputs:
        value = values[(id(n), p)]
        outputs.append(value.clone() if n.type in ("Data", "Const") or (id(n), p) in returned else value)
        returned.add((id(n), p))
    return outputs
