"""GE's Session (ge.session.Session): holds graphs by id and runs them on the twin (session/_executor.py)."""
from __future__ import annotations

from typing import List, Optional, Union

import torch

from ..error import raise_ge_error
from ..ge_global.geapi import check_options
from ..graph.graph import Graph
from ..graph.tensor import Tensor
from ._executor import check_runnable, run


class Session:
    def __init__(self, options: Optional[dict] = None) -> None:
        if options is not None:
            check_options(options, "options")
        self._graphs: dict = {}

    def __copy__(self):
        raise RuntimeError("Session does not support copy")

    def __deepcopy__(self, memodict):
        raise RuntimeError("Session does not support deepcopy")

    def add_graph(self, graph_id: int, add_graph: Graph, options: dict = None) -> int:
        """Register `add_graph` under `graph_id`; returns 0. GeError if the id is taken or a node cannot run here."""
        if not isinstance(graph_id, int) or isinstance(graph_id, bool):
            raise TypeError("Graph_id must be an integer")
        if not isinstance(add_graph, Graph):
            raise TypeError("Add_graph must be a Graph")
        if options is not None:
            check_options(options, "options")
        if graph_id in self._graphs:
            raise_ge_error("AddGraph", "a graph with this id was already added", graph_id=graph_id)
        try:
            check_runnable(add_graph._ir)
        except ValueError as error:
            raise_ge_error("AddGraph", str(error), graph_id=graph_id)
        self._graphs[graph_id] = add_graph._ir
        add_graph._ir.graph_id = graph_id  # GE numbers the graph's dump files by it from now on
        return 0

    def remove_graph(self, graph_id: int) -> int:
        if not isinstance(graph_id, int) or isinstance(graph_id, bool):
            raise TypeError("Graph_id must be an integer")
        if self._graphs.pop(graph_id, None) is None:
            raise_ge_error("RemoveGraph", "no graph with this id", graph_id=graph_id)
        return 0

    def run_graph(self, graph_id: int, inputs: List[Union[Tensor, torch.Tensor]]) -> List[Union[Tensor, torch.Tensor]]:
        """The outputs of graph `graph_id` for `inputs` (by input index): torch tensors when every input is a torch
        tensor (and there is one), GE Tensors otherwise. GeError naming the input or node when the run fails."""
        if not isinstance(graph_id, int) or isinstance(graph_id, bool):
            raise TypeError("Graph_id must be an integer")
        if not isinstance(inputs, list):
            raise TypeError("inputs must be a list of Tensor")
        if not all(isinstance(t, (Tensor, torch.Tensor)) for t in inputs):
            raise TypeError("All elements in inputs must be the type of Tensor (or torch.Tensor)")
        if graph_id not in self._graphs:
            raise_ge_error("RunGraph", "no graph with this id was added", graph_id=graph_id)
        as_torch = bool(inputs) and all(isinstance(t, torch.Tensor) for t in inputs)
        feeds = [t if isinstance(t, torch.Tensor) else t._data for t in inputs]
        try:
            outputs = run(self._graphs[graph_id], feeds)
        except (TypeError, ValueError, RuntimeError) as error:
            raise_ge_error("RunGraph", str(error), graph_id=graph_id)
        return outputs if as_torch else [Tensor._create_from(t) for t in outputs]
