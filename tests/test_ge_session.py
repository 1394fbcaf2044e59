"""actgrad.ge.session / ge_global / graph.Tensor: running graphs on the twin, unknown shapes, errors at run time that
name the input, freeing intermediates, GE Tensors and torch tensors in and out, GeApi's argument checks."""
import weakref

import numpy as np
import pytest
import torch

import actgrad
from actgrad.ge.es import GraphBuilder
from actgrad.ge.es.actgrad import ActgradHardtanhGrad, ActgradSiluGrad
from actgrad.ge.es.builtins import BUILTINS, Builtin, Cast, Identity
from actgrad.ge.ge_global import GeApi
from actgrad.ge.graph import Tensor
from actgrad.ge.graph.types import DataType, Format
from actgrad.ge.session import GeError, Session


def hardtanh_graph(shape=None, data_type=DataType.DT_FLOAT):
    b = GraphBuilder("ht")
    z, dy = b.create_input(0, name="z", data_type=data_type, shape=shape), b.create_input(1, name="dy", shape=shape,
                                                                                        data_type=data_type)
    return b.build_and_reset([ActgradHardtanhGrad(z, dy, min_val=-0.5) * 2.0])


def session_with(graph):
    s = Session()
    assert s.add_graph(3, graph) == 0
    return s


def test_unknown_shapes_take_the_fed_shape():
    s = session_with(hardtanh_graph())
    for shape in [(7,), (2, 3, 4)]:
        z, dy = torch.randn(shape), torch.randn(shape)
        out, = s.run_graph(3, [z, dy])
        assert torch.equal(out, actgrad.hardtanh_grad(z, dy, -0.5) * torch.tensor(2.0))


def test_unknown_shapes_are_checked_at_run_time_naming_the_node_and_inputs():
    s = session_with(hardtanh_graph())
    with pytest.raises(GeError, match=r"RunGraph failed; graph_id=3; ActgradHardtanhGrad node ActgradHardtanhGrad_0: "
                                      r"result and grad must have the same shape, got \[2\] and \[3\]"):
        s.run_graph(3, [torch.randn(2), torch.randn(3)])


def test_a_feed_contradicting_the_declaration_names_the_input():
    s = session_with(hardtanh_graph(shape=[2, -1]))
    s.run_graph(3, [torch.randn(2, 5), torch.randn(2, 5)])
    with pytest.raises(GeError, match=r"input 1 \(dy\) is declared with shape \[2, -1\] but was fed shape \[3, 5\]"):
        s.run_graph(3, [torch.randn(2, 5), torch.randn(3, 5)])
    with pytest.raises(GeError, match=r"input 0 \(z\) is declared DT_FLOAT but was fed a torch.float16 tensor"):
        s.run_graph(3, [torch.randn(2, 5).half(), torch.randn(2, 5)])
    with pytest.raises(GeError, match="graph ht has 2 inputs, 1 were fed"):
        s.run_graph(3, [torch.randn(2, 5)])


def test_ge_tensors_in_give_ge_tensors_out():
    z, dy = torch.randn(2, 3), torch.randn(2, 3)
    s = session_with(hardtanh_graph(shape=[2, 3]))
    out, = s.run_graph(3, [Tensor(z.flatten().tolist(), None, DataType.DT_FLOAT, Format.FORMAT_ND, [2, 3]),
                           Tensor(dy)])
    assert isinstance(out, Tensor)
    assert out.get_data_type() == DataType.DT_FLOAT and out.get_shape() == [2, 3] and out.format == Format.FORMAT_ND
    assert out.get_data() == (actgrad.hardtanh_grad(z, dy, -0.5) * 2.0).tolist()
    torch_out, = s.run_graph(3, [z, dy])
    assert isinstance(torch_out, torch.Tensor) and torch_out.tolist() == out.get_data()


def test_intermediates_are_freed_after_their_last_use(monkeypatch):
    made, alive_at_call = [], []
    mul = BUILTINS["Mul"]

    def host(args, attrs, dtype):
        alive_at_call.append([r() is not None for r in made])
        out = mul.host(args, attrs, dtype)
        made.append(weakref.ref(out))
        return out

    monkeypatch.setitem(BUILTINS, "Mul", Builtin(mul.inputs, mul.infer, host))
    b = GraphBuilder()
    x = b.create_input(0, shape=[1000])
    m1 = x * 2.0
    m2 = m1 * 3.0
    m3 = m2 * 4.0
    graph = b.build_and_reset([m3 * 5.0, m2])
    out, kept = session_with(graph).run_graph(3, [torch.ones(1000)])
    # at the third Mul, m1 (read only by the second) is gone; m2 is a graph output and stays
    assert alive_at_call == [[], [True], [False, True], [False, True, True]]
    assert torch.equal(out, torch.full((1000,), 120.0)) and torch.equal(kept, torch.full((1000,), 6.0))


def test_session_errors():
    s = session_with(hardtanh_graph())
    with pytest.raises(GeError, match="AddGraph failed; graph_id=3; a graph with this id was already added"):
        s.add_graph(3, hardtanh_graph())
    with pytest.raises(GeError, match="RunGraph failed; graph_id=4; no graph with this id was added"):
        s.run_graph(4, [])
    with pytest.raises(TypeError, match="Add_graph must be a Graph"):
        s.add_graph(5, object())
    with pytest.raises(TypeError, match="All elements in inputs must be the type of Tensor"):
        s.run_graph(3, [np.ones(3)])
    assert s.remove_graph(3) == 0
    with pytest.raises(TypeError, match="options: value of 'a' must be a str"):
        Session({"a": 1})


def test_a_graph_with_a_node_the_twin_cannot_run_is_refused_by_add_graph():
    graph = hardtanh_graph()
    graph._ir.nodes[-1].type = "MatMul"
    with pytest.raises(GeError, match="node Mul_0 has type MatMul, which the twin cannot run"):
        Session().add_graph(0, graph)


def test_geapi_validates_and_returns_zero():
    assert GeApi().ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "0"}) == 0
    assert GeApi.ge_finalize() == 0
    with pytest.raises(TypeError, match="Ge init config must be a dictionary"):
        GeApi.ge_initialize([("ge.exec.deviceId", "0")])
    with pytest.raises(TypeError, match="Ge init config must not be empty"):
        GeApi.ge_initialize({})
    with pytest.raises(TypeError, match="Ge init config: value of 'ge.exec.deviceId' must be a str, got int 0"):
        GeApi.ge_initialize({"ge.exec.deviceId": 0})
    with pytest.raises(ValueError, match="ge.exec.deviceId must be a device number"):
        GeApi.ge_initialize({"ge.exec.deviceId": "npu0"})


def test_tensor_from_list_torch_numpy_and_file(tmp_path):
    t = Tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], None, DataType.DT_FLOAT16, Format.FORMAT_ND, [2, 3])
    assert t.get_data() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] and t.data_type == DataType.DT_FLOAT16
    assert Tensor([7], data_type=DataType.DT_INT64).get_data() == 7  # no shape: a scalar, as GE
    assert Tensor(np.arange(4, dtype=np.int32), data_type=DataType.DT_INT32).shape == [4]
    assert Tensor(torch.ones(2, 2, dtype=torch.bfloat16), data_type=DataType.DT_BF16).get_data() == [[1.0] * 2] * 2
    path = tmp_path / "raw.bin"
    path.write_bytes(np.array([1.5, -2.0], dtype=np.float32).tobytes())
    assert Tensor(None, str(path), shape=[2]).get_data() == [1.5, -2.0]
    assert "data_type=DT_FLOAT" in str(Tensor([1.0], shape=[1]))
    with pytest.raises(TypeError, match="data is a torch.float16 tensor but data_type is DT_FLOAT"):
        Tensor(torch.ones(2).half())
    with pytest.raises(ValueError, match=r"Tensor data has 3 values but shape \[2\] holds 2"):
        Tensor([1.0, 2.0, 3.0], shape=[2])
    with pytest.raises(RuntimeError, match="either by data or by file"):
        Tensor([1.0], str(path))
    with pytest.raises(ValueError, match="the twin has no device memory"):
        Tensor([1.0], placement=actgrad.ge.graph.Placement.PLACEMENT_DEVICE)


def test_silu_graph_fed_ge_tensors_matches_eager_bitwise():
    x, dy = torch.randn(4, 4).bfloat16(), torch.randn(4, 4).bfloat16()
    b = GraphBuilder()
    graph = b.build_and_reset([ActgradSiluGrad(b.create_input(0, data_type=DataType.DT_BF16),
                                               b.create_input(1, data_type=DataType.DT_BF16))])
    out, = session_with(graph).run_graph(3, [Tensor(dy, data_type=DataType.DT_BF16),
                                            Tensor(x, data_type=DataType.DT_BF16)])
    got = torch.tensor(out.get_data(), dtype=torch.bfloat16)  # bfloat16 values are exact as Python floats
    assert torch.equal(got.view(torch.int16), actgrad.silu_grad(dy, x).view(torch.int16))


def test_outputs_never_alias_the_fed_tensors_or_the_graphs_constants():
    # a Cast to the same data type is still a new tensor (Tensor.to would hand back its input), so changing an output
    # changes neither the caller's input nor the constant the next run reads
    b = GraphBuilder("alias")
    x = b.create_input(0, shape=[3])
    c = b.create_const_float([1.0, 2.0, 3.0])
    s = session_with(b.build_and_reset([Cast(x, dst_type=DataType.DT_FLOAT), Cast(c, dst_type=DataType.DT_FLOAT),
                                        Identity(x)]))
    fed = torch.tensor([4.0, 5.0, 6.0])
    for out in s.run_graph(3, [fed]):
        out.add_(100.0)
    assert fed.tolist() == [4.0, 5.0, 6.0]
    assert [o.tolist() for o in s.run_graph(3, [fed])] == [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_a_feed_off_the_cpu_names_the_input():
    s = session_with(hardtanh_graph(shape=[2]))
    with pytest.raises(GeError, match=r"input 1 \(dy\) is a tensor on meta; the twin runs CPU tensors"):
        s.run_graph(3, [torch.randn(2), torch.empty(2, device="meta")])


def test_one_tensor_given_as_two_outputs_is_two_tensors():
    b = GraphBuilder("twice")
    x = b.create_input(0, shape=[2])
    y = x * 2.0
    s = session_with(b.build_and_reset([y, y]))
    first, second = s.run_graph(3, [torch.ones(2)])
    first.add_(1.0)
    assert second.tolist() == [2.0, 2.0]


def test_outputs_are_data_not_autograd_results():
    # a GE session returns values; fed tensors that require grad do not make the outputs part of an autograd graph
    s = session_with(hardtanh_graph(shape=[3]))
    z, dy = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    out, = s.run_graph(3, [z, dy])
    assert not out.requires_grad and out.grad_fn is None
    assert torch.equal(out, actgrad.hardtanh_grad(z.detach(), dy.detach(), -0.5) * 2.0)
