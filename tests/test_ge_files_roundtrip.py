"""Graph mode end to end: graphs built with the ES builder are dumped (the ONNX dump through onnx.checker), saved as
AIR files, read back into a new Graph, and run by a Session: the reloaded graph gives the same bits as the graph
that was built, which gives the same bits as the eager calls."""
import onnx
import pytest
import torch

import actgrad  # noqa: F401
import reference as R
from actgrad.ge.es import GraphBuilder
from actgrad.ge.es import actgrad as es_actgrad
from actgrad.ge.graph import DumpFormat, Graph
from actgrad.ge.session import Session
from actgrad.spec import OPS
from test_ge_ops import GE, bits, inputs, ir_attrs


def run(graph, feeds):
    session = Session()
    assert session.add_graph(7, graph) == 0
    return session.run_graph(7, feeds)


def reloaded(graph, path) -> Graph:
    graph.save_to_air(str(path))
    fresh = Graph("placeholder")
    fresh.load_from_air(str(path))
    return fresh


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("op", OPS, ids=lambda op: op.op_type)
def test_every_operator_survives_air_and_onnx(op, dtype, tmp_path, monkeypatch):
    attrs = R.typical_attrs(op.name)
    feeds = inputs(op, dtype)
    builder = GraphBuilder(op.op_type)
    holders = [builder.create_input(i, name=n, data_type=GE[dtype], shape=list(feeds[i].shape))
               for i, n in enumerate(op.inputs)]
    builder.set_graph_output(getattr(es_actgrad, op.op_type)(*holders, **ir_attrs(op, attrs)) * 2.0, 0)
    graph = builder.build_and_reset()

    eager = getattr(torch.ops.actgrad, op.name)(*feeds, *attrs.values()) * 2.0
    again = reloaded(graph, tmp_path / "g.air")
    assert [(n.name, n.type) for n in again.get_all_nodes()] == [(n.name, n.type) for n in graph.get_all_nodes()]
    (built_out,), (reloaded_out,) = run(graph, feeds), run(again, feeds)
    assert torch.equal(bits(built_out), bits(eager)) and torch.equal(bits(reloaded_out), bits(eager))

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DUMP_GRAPH_PATH", raising=False)
    graph.dump_to_file(DumpFormat.kOnnx, suffix="rt")
    (path,) = tmp_path.glob("ge_onnx_*_rt.onnx")
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    node = next(n for n in model.graph.node if n.op_type == op.op_type)
    assert node.domain == "actgrad" and list(node.input)[:2] == [f"{name}:0" for name in op.inputs]


def test_the_example_graph_reloads_and_runs_with_unknown_shapes(tmp_path):
    builder = GraphBuilder("UnknownShapes")
    dy, x = builder.create_input(0, name="dy"), builder.create_input(1, name="x")
    builder.set_graph_output(es_actgrad.ActgradGeluBackward(x, dy * 0.5, mode="gelu_tanh"), 0)
    graph = builder.build_and_reset()
    again = reloaded(graph, tmp_path / "u.air")
    x_t, dy_t = torch.randn(3, 4, 5), torch.randn(3, 4, 5)
    (out,) = run(again, [dy_t, x_t])
    assert torch.equal(out, torch.ops.actgrad.gelu_backward(x_t, dy_t * 0.5, "tanh"))
    assert again.find_node_by_name("dy").type == "Data"
