"""actgrad.ge.es: GraphBuilder, TensorHolder arithmetic, the host built-ins, and the validation at the call that is
wrong (messages name the argument)."""
import pytest
import torch

import actgrad  # noqa: F401
from actgrad.ge.es import GraphBuilder, TensorHolder
from actgrad.ge.es.actgrad import ActgradClampBackward, ActgradEluBackward, ActgradHardtanhGrad
from actgrad.ge.es.all import Add, Cast, Div, Identity, Mul, Neg, RealDiv, Sub
from actgrad.ge.graph import Tensor
from actgrad.ge.graph.types import DataType
from actgrad.ge.session import Session

F32, F16, BF16, I64 = DataType.DT_FLOAT, DataType.DT_FLOAT16, DataType.DT_BF16, DataType.DT_INT64


def run(builder, outputs, feeds):
    session = Session()
    session.add_graph(0, builder.build_and_reset(outputs))
    return session.run_graph(0, feeds)


def desc(t: TensorHolder):
    d = t._desc()
    return DataType(d.data_type), d.shape


@pytest.mark.parametrize("fn, ref", [(Add, torch.add), (Sub, torch.sub), (Mul, torch.mul), (Div, torch.div),
                                     (RealDiv, torch.div)])
@pytest.mark.parametrize("dtype, ge", [(torch.float32, F32), (torch.float16, F16), (torch.bfloat16, BF16)])
def test_binary_builtins_compute_as_torch(fn, ref, dtype, ge):
    x, y = torch.randn(3, 4).to(dtype), torch.randn(4).to(dtype)  # y broadcasts
    b = GraphBuilder()
    out = fn(b.create_input(0, data_type=ge, shape=[3, 4]), b.create_input(1, data_type=ge, shape=[4]))
    assert desc(out) == (ge, (3, 4))
    got, = run(b, [out], [x, y])
    assert torch.equal(got, ref(x, y))


def test_add_and_mul_promote_as_cann():
    x, i = torch.randn(2, 3), torch.arange(6).reshape(2, 3)
    b = GraphBuilder()
    fx, ix = b.create_input(0, shape=[2, 3]), b.create_input(1, data_type=I64, shape=[2, 3])
    s, p = Add(fx, ix), Mul(ix, fx)
    assert desc(s)[0] == F32 and desc(p)[0] == F32
    got_s, got_p = run(b, [s, p], [x, i])
    assert torch.equal(got_s, x + i) and torch.equal(got_p, i * x)


def test_unary_builtins():
    x = torch.randn(5) * 100
    b = GraphBuilder()
    h = b.create_input(0, shape=[5])
    outs = [Neg(h), Cast(h, dst_type=DataType.DT_FLOAT16), Cast(h, dst_type=DataType.DT_INT32), Identity(h)]
    assert [desc(o)[0] for o in outs] == [F32, F16, DataType.DT_INT32, F32]
    neg, half, i32, same = run(b, outs, [x])
    assert torch.equal(neg, -x) and torch.equal(half, x.half()) and torch.equal(i32, x.int()) and torch.equal(same, x)
    assert same.data_ptr() != x.data_ptr()  # a copy, as GE's outputs are


@pytest.mark.parametrize("dtype, ge", [(torch.float32, F32), (torch.float16, F16), (torch.bfloat16, BF16)])
def test_a_number_operand_is_a_scalar_of_the_other_operands_dtype(dtype, ge):
    x = torch.randn(8).to(dtype)
    b = GraphBuilder()
    h = b.create_input(0, data_type=ge, shape=[8])
    outs = [h * (1 / 0.9), 1.3 + h, h - 2, 3 - h, h / 7, 2.5 / h]
    assert all(desc(o) == (ge, (8,)) for o in outs)
    consts = [n for n in b._ir.nodes if n.type == "Const"]
    assert [DataType(c.attrs["value"].value.data_type) for c in consts] == [ge] * 6
    c = lambda v: torch.tensor(v, dtype=dtype)  # noqa: E731
    want = [x * c(1 / 0.9), x + c(1.3), x - c(2), c(3) - x, x / c(7), c(2.5) / x]
    got = run(b, outs, [x])
    assert all(torch.equal(g, w) for g, w in zip(got, want))


def test_reflected_add_and_mul_put_the_tensor_first_as_ge():
    b = GraphBuilder()
    h = b.create_input(0, shape=[2])
    node = (2.0 * h)._node
    assert node.type == "Mul" and node.inputs[0][0].type == "Data" and node.inputs[1][0].type == "Const"


def test_a_float_beside_an_integer_tensor_is_a_float_scalar():
    b = GraphBuilder()
    i = b.create_input(0, data_type=I64, shape=[3])
    assert desc(i * 2) == (I64, (3,)) and desc(i * 0.5) == (F32, (3,))


def test_es_functions_take_numbers_as_ge_does():
    """Add(x, 2.0) (a function, not an operator) makes GE's DT_FLOAT scalar, a list of ints a DT_INT64 constant;
    Add promotes (float16 with int64 is float16)."""
    b = GraphBuilder()
    h = b.create_input(0, data_type=F16, shape=[2])
    assert desc(Add(h, 2.0)) == (F32, (2,)) and desc(Add(h, [1, 2])) == (F16, (2,))


def test_consts():
    b = GraphBuilder()
    outs = [b.create_const_float([1.5, 2.0], shape=[2, 1]), b.create_const_int64(7), b.create_vector_int64([1, 2]),
            b.create_scalar_float(0.1), b.create_scalar_int64(-3), b.create_const_int32([1, 2, 3])]
    assert [desc(o) for o in outs] == [(F32, (2, 1)), (I64, ()), (I64, (2,)), (F32, ()), (I64, ()),
                                       (DataType.DT_INT32, (3,))]
    b2 = GraphBuilder()
    with pytest.raises(ValueError, match=r"Value count \(3\) doesn't match shape \[2\]"):
        b2.create_const_float([1.0, 2.0, 3.0], shape=[2])
    with pytest.raises(TypeError, match="Value must be an integer"):
        b2.create_scalar_int64(1.5)


def test_actgrad_node_validation_names_the_argument():
    b = GraphBuilder("g")
    f32 = b.create_input(0, shape=[4, 5])
    f16 = b.create_input(1, data_type=F16, shape=[4, 5])
    other_shape = b.create_input(2, shape=[5, 4])
    i64 = b.create_input(3, data_type=I64, shape=[4, 5])
    deep = b.create_input(4, shape=[1] * 9)
    with pytest.raises(TypeError, match=r"^ActgradHardtanhGrad: result and grad must have the same data type, got "
                                        r"DT_FLOAT and DT_FLOAT16$"):
        ActgradHardtanhGrad(f32, f16)
    with pytest.raises(ValueError, match=r"^ActgradHardtanhGrad: result and grad must have the same shape, got "
                                         r"\[4, 5\] and \[5, 4\]$"):
        ActgradHardtanhGrad(f32, other_shape)
    with pytest.raises(TypeError, match=r"^ActgradHardtanhGrad: grad has data type DT_INT64; supported data types are "
                                        r"DT_FLOAT, DT_FLOAT16, DT_BF16$"):
        ActgradHardtanhGrad(f32, i64)
    with pytest.raises(ValueError, match=r"result has rank 9; at most 8 dimensions"):
        ActgradHardtanhGrad(deep, deep)
    with pytest.raises(TypeError, match=r"^ActgradHardtanhGrad: min_val must be a real number \(int or float\), got "
                                        r"str 'a'$"):
        ActgradHardtanhGrad(f32, f32, min_val="a")
    with pytest.raises(ValueError, match=r"^ActgradClampBackward: attribute 'min' = 2 is invalid: expected min <= max "
                                         r"\(max = 1 as float32\)$"):
        ActgradClampBackward(f32, f32, min=2.0, max=1.0)
    with pytest.raises(ValueError, match=r"attribute 'alpha' = -1 is invalid: expected alpha >= 0 when use_dst"):
        ActgradEluBackward(f32, f32, alpha=-1.0)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'alpha'"):
        ActgradEluBackward(f32, f32)
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        ActgradHardtanhGrad(f32, f32, f32)
    with pytest.raises(TypeError, match="Value must be TensorHolder or int|float"):
        ActgradHardtanhGrad(f32, "grad")
    with pytest.raises(ValueError, match=r"^ActgradHardtanhGrad: result and grad must have the same shape, got "
                                         r"\[\] and \[4, 5\]$"):
        ActgradHardtanhGrad(2.0, f32)  # a number is GE's DT_FLOAT scalar
    assert len([n for n in b._ir.nodes if n.type.startswith("Actgrad")]) == 0  # no failed call left a node


def test_builtin_validation():
    b = GraphBuilder()
    x, y = b.create_input(0, shape=[3]), b.create_input(1, shape=[4])
    i = b.create_input(2, data_type=I64, shape=[3])
    with pytest.raises(ValueError, match=r"^Add: x1 and x2 shapes \[3\] and \[4\] cannot be broadcast$"):
        x + y
    with pytest.raises(TypeError, match=r"^Sub: x1 and x2 must have the same data type, got DT_FLOAT and DT_INT64$"):
        Sub(x, i)
    with pytest.raises(TypeError, match=r"^Div: x1 has data type DT_INT64; expected a floating data type"):
        Div(i, i)
    with pytest.raises(TypeError, match="Cast: dst_type must be a DataType"):
        Cast(x, dst_type="DT_FLOAT")
    with pytest.raises(TypeError, match="DT_STRING is not supported here"):
        Cast(x, dst_type=DataType.DT_STRING)


def test_a_tensor_of_another_builder_is_refused():
    a, b = GraphBuilder("a"), GraphBuilder("b")
    x, y = a.create_input(0, shape=[2]), b.create_input(0, shape=[2])
    with pytest.raises(ValueError, match=r"^ActgradHardtanhGrad: grad belongs to GraphBuilder 'b', not 'a'"):
        ActgradHardtanhGrad(x, y)
    with pytest.raises(ValueError, match=r"the other operand of add belongs to GraphBuilder 'b', not 'a'"):
        x + y
    with pytest.raises(ValueError, match=r"tensor belongs to GraphBuilder 'a', not 'b'"):
        b.set_graph_output(x, 0)


def test_output_index_gap_is_reported_by_build_and_reset():
    b = GraphBuilder("gappy")
    x = b.create_input(0, shape=[2])
    b.set_graph_output(x, 0)
    b.set_graph_output(x * 2.0, 2)
    with pytest.raises(RuntimeError, match=r"^Failed to build graph gappy: graph output indices \[0, 2\] skip index 1"):
        b.build_and_reset()
    b.set_graph_output(x, 1)
    graph = b.build_and_reset()
    assert [n.name for n, _ in graph._ir.outputs] == ["input_0", "input_0", "Mul_0"]


def test_a_built_builder_cannot_be_used():
    b = GraphBuilder()
    x = b.create_input(0, shape=[2])
    b.build_and_reset([x])
    with pytest.raises(RuntimeError, match="Cannot create input: GraphBuilder has already been built"):
        b.create_input(1)
    with pytest.raises(RuntimeError, match="GraphBuilder has already been built"):
        x * 2.0


def test_create_input_validation_and_defaults():
    b = GraphBuilder()
    x = b.create_input(0)
    assert x.name == "input_0" and desc(x) == (F32, None)
    assert [t.name for t in b.create_inputs(2, start_index=1)] == ["input_1", "input_2"]
    with pytest.raises(ValueError, match="already has input 1"):
        b.create_input(1)
    with pytest.raises(TypeError, match="Input index must be an integer"):
        b.create_input("3")
    with pytest.raises(TypeError, match="Shape must be a list of integers"):
        b.create_input(3, shape=(2, 3))
    with pytest.raises(TypeError, match="data_type must be a DataType"):
        b.create_input(3, data_type=torch.float32)
    with pytest.raises(ValueError, match="a node named 'input_0' already exists"):
        b.create_input(3, name="input_0")
    with pytest.raises(TypeError, match=r"create_input\(\) takes 2 positional arguments"):
        b.create_input(3, "x")  # keyword-only after index, as GE
    assert desc(b.create_input(4, shape=[-1, 3])) == (F32, (-1, 3))
    assert desc(b.create_input(5, shape=[])) == (F32, ())


def test_set_shape_and_data_type_of_an_input():
    b = GraphBuilder()
    x = b.create_input(0).set_shape([2, 3]).set_data_type(F16)
    assert desc(x) == (F16, (2, 3)) and x._node.input_descs[0].shape == (2, 3)
    with pytest.raises(RuntimeError, match="only a graph input's can be set"):
        (x * 2.0).set_shape([6])


def test_bools_are_not_counts_indices_or_dims():
    # bool is an int subclass: without a check, create_inputs(True) made one input and a [True] shape reached torch
    b = GraphBuilder()
    with pytest.raises(TypeError, match="Number of inputs must be a positive integer"):
        b.create_inputs(True)
    with pytest.raises(TypeError, match="Start index must be a non-negative integer"):
        b.create_inputs(1, start_index=True)
    with pytest.raises(TypeError, match="Shape must be a list of non-negative integers"):
        b.create_const_float(1.0, shape=[True])
    with pytest.raises(TypeError, match="Shape must be a list of integers"):
        Tensor([1.0], shape=[True])
