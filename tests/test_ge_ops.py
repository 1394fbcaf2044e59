"""actgrad.ge.es.actgrad: one ES function per operator, with gen_esb's signature, building a node that a Session
runs bit-identically to the eager op (NaN bits included)."""
import inspect

import pytest
import torch

import actgrad  # noqa: F401
import reference as R
from actgrad.ge.es import GraphBuilder
from actgrad.ge.es import actgrad as es_actgrad
from actgrad.ge.es import all as es_all
from actgrad.ge.graph.types import DataType
from actgrad.ge.session import Session
from actgrad.spec import OPS

GE = {torch.float32: DataType.DT_FLOAT, torch.float16: DataType.DT_FLOAT16, torch.bfloat16: DataType.DT_BF16}


def ir_attrs(op, attrs: dict) -> dict:
    """torch-side attributes ({name: value}) as the ES function takes them ({IR name: IR value})."""
    by_name = {a.name: a for a in op.attrs}
    return {by_name[k].ir: (by_name[k].ir_value(v) if by_name[k].type == "str" else v) for k, v in attrs.items()}


def inputs(op, dtype, shape=(5, 37)):
    g = torch.Generator().manual_seed(7)
    saved = torch.randn(shape, generator=g) * 3
    saved.view(-1)[:4] = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0])
    if op.name == "sqrt_backward":
        saved = saved.abs()
    grad = torch.randn(shape, generator=g)
    return [(saved if name == op.saved else grad).to(dtype) for name in op.inputs]


def bits(t):
    return t.view(torch.int16 if t.element_size() == 2 else torch.int32)


def run_graph(graph, feeds):
    session = Session()
    assert session.add_graph(1, graph) == 0
    return session.run_graph(1, feeds)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("op", OPS, ids=lambda op: op.op_type)
def test_each_operator_runs_bit_identical_to_eager(op, dtype):
    attrs = R.typical_attrs(op.name)
    feeds = inputs(op, dtype)
    builder = GraphBuilder(op.op_type)
    holders = [builder.create_input(i, name=n, data_type=GE[dtype], shape=list(feeds[i].shape))
               for i, n in enumerate(op.inputs)]
    out = getattr(es_actgrad, op.op_type)(*holders, **ir_attrs(op, attrs))
    builder.set_graph_output(out, 0)
    graph = builder.build_and_reset()
    node = graph.find_node_by_name(out.name)
    assert node.type == op.op_type
    assert {k: node.get_attr(k) for k in ir_attrs(op, attrs)} == {
        k: (torch.tensor(v, dtype=torch.float32).item() if isinstance(v, float) else v)
        for k, v in ir_attrs(op, attrs).items()}
    got, = run_graph(graph, feeds)
    want = getattr(torch.ops.actgrad, op.name)(*feeds, **attrs)
    assert got.dtype == dtype and got.shape == want.shape
    assert torch.equal(bits(got), bits(want))


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.op_type)
def test_signature_is_gen_esbs(op):
    params = list(inspect.signature(getattr(es_actgrad, op.op_type)).parameters.values())
    assert [p.name for p in params[:2]] == list(op.inputs)
    assert all(p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params[:2])
    attrs = [a for a in op.attrs if a.required] + [a for a in op.attrs if not a.required]
    assert [p.name for p in params[2:]] == [a.ir for a in attrs]
    assert all(p.kind == p.KEYWORD_ONLY for p in params[2:])
    for p, a in zip(params[2:], attrs):
        assert p.default == (p.empty if a.required else a.ir_value(a.default) if a.type == "str" else a.default)
    assert getattr(es_all, op.op_type) is getattr(es_actgrad, op.op_type)


def test_defaults_run_like_the_eager_defaults():
    op = next(o for o in OPS if o.op_type == "ActgradSoftPlusBackward")  # threshold defaults to inf
    feeds = inputs(op, torch.float32)
    builder = GraphBuilder()
    a, b = (builder.create_input(i) for i in range(2))
    graph = builder.build_and_reset([es_actgrad.ActgradSoftPlusBackward(a, b)])
    got, = run_graph(graph, feeds)
    assert torch.equal(bits(got), bits(torch.ops.actgrad.soft_plus_backward(*feeds)))


def test_gelu_mode_takes_the_ir_values():
    builder = GraphBuilder()
    h, g = builder.create_input(0, shape=[4]), builder.create_input(1, shape=[4])
    out = es_actgrad.ActgradGeluBackward(h, g, mode="gelu_tanh")
    assert out._get_node_snapshot().get_attr("mode") == "gelu_tanh"
    with pytest.raises(ValueError, match=r"^ActgradGeluBackward: attribute 'mode' = 'tanh' is invalid: expected one of "
                                         r"'gelu_erf', 'gelu_tanh'$"):
        es_actgrad.ActgradGeluBackward(h, g, mode="tanh")
    with pytest.raises(TypeError, match="unexpected keyword argument 'approximate'"):
        es_actgrad.ActgradGeluBackward(h, g, approximate="tanh")
