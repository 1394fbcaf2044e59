"""actgrad.compile_backend: compiled results bit-identical to eager (NaN included), graphs of actgrad ops and the
lowered ATen ops run through an actgrad.ge Session, anything else runs the whole graph eagerly."""
import pytest
import torch

import actgrad
from actgrad.compile_backend import lowering_report
from actgrad.ge.session import Session


@pytest.fixture
def session_runs(monkeypatch):
    """How many times a Session ran a graph."""
    count = [0]
    run_graph = Session.run_graph

    def counting(self, graph_id, inputs):
        count[0] += 1
        return run_graph(self, graph_id, inputs)

    monkeypatch.setattr(Session, "run_graph", counting)
    return count


def bits(t):
    return t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def mlp_backward(dy, z, mask, h):
    g = actgrad.hardtanh_grad(z, dy) * mask * (1 / (1 - 0.1))
    dh = actgrad.gelu_backward(h, g, approximate="tanh")
    return dh, (dh.to(torch.float16) - 1.3) * 0.7, -h / 3, (h.bfloat16() + 1.3) / 7


def test_compiled_equals_eager_bitwise(session_runs):
    compiled = torch.compile(mlp_backward, backend=actgrad.compile_backend, fullgraph=True)
    for seed in range(2):
        torch.manual_seed(seed)
        args = [torch.randn(8, 64) * 4 for _ in range(4)]
        args[3].view(-1)[:3] = torch.tensor([float("nan"), float("inf"), -0.0])
        got, want = compiled(*args), mlp_backward(*args)
        assert all(g.dtype == w.dtype and torch.equal(bits(g), bits(w)) for g, w in zip(got, want))
    assert session_runs[0] == 2


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_low_precision_scalars_follow_aten(dtype, session_runs):
    def f(x, y):
        return actgrad.silu_grad(x, y) * 1.1 + 0.3, (x - 0.7) / 0.3, x + y * 2

    compiled = torch.compile(f, backend=actgrad.compile_backend, fullgraph=True)
    x, y = (torch.randn(4099) * 5).to(dtype), (torch.randn(4099) * 5).to(dtype)
    assert all(torch.equal(bits(g), bits(w)) for g, w in zip(compiled(x, y), f(x, y)))
    assert session_runs[0] == 1


def test_an_unlowerable_node_runs_the_whole_graph_eagerly(session_runs):
    def f(x, y):
        return torch.sin(actgrad.hardtanh_grad(x, y))

    compiled = torch.compile(f, backend=actgrad.compile_backend, fullgraph=True)
    x, y = torch.randn(16), torch.randn(16)
    assert torch.equal(compiled(x, y), f(x, y))
    assert session_runs[0] == 0


def test_lowering_report_names_the_node():
    gm = torch.fx.symbolic_trace(lambda x: torch.ops.aten.sin.default(x))
    for node in gm.graph.nodes:
        node.meta["val"] = torch.empty(3)
    assert "has no lowering" in lowering_report(gm)


def test_dynamic_shapes_are_fed_at_run_time(session_runs):
    compiled = torch.compile(lambda x, y: actgrad.elu_backward(x, y, 1.0) * 2, backend=actgrad.compile_backend,
                             dynamic=True)
    for n in (5, 9):
        x, y = torch.randn(n), torch.randn(n)
        assert torch.equal(compiled(x, y), actgrad.elu_backward(x, y, 1.0) * 2)
    assert session_runs[0] == 2


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_a_number_minus_a_tensor_is_lowered(dtype, session_runs):
    # `1.1 - t` is aten.rsub.Scalar (ATen rounds the number to t's dtype, as for sub); rsub.Tensor is `b - a`
    def f(x, y):
        return 1.1 - actgrad.silu_grad(x, y), torch.rsub(x, y), 3 - x

    compiled = torch.compile(f, backend=actgrad.compile_backend, fullgraph=True)
    x, y = (torch.randn(4099) * 5).to(dtype), (torch.randn(4099) * 5).to(dtype)
    assert all(g.dtype == w.dtype and torch.equal(bits(g), bits(w)) for g, w in zip(compiled(x, y), f(x, y)))
    assert session_runs[0] == 1
