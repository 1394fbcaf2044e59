"""GraphIRs for the serialiser tests (test_ge_dump.py, test_ge_air.py), built directly, without the builder, and a
structural comparison of two GraphIRs (NodeIR compares by identity)."""
from __future__ import annotations

import struct

import torch

from actgrad import spec
from actgrad.ge.graph._ir import AttrValue, ConstTensor, GraphIR, NodeIR, TensorDescIR

DT_FLOAT, DT_FLOAT16, DT_BF16, DT_BOOL, DT_INT64 = 0, 1, 27, 12, 9


def desc(shape, dt=DT_FLOAT, fmt=2):
    return TensorDescIR(dt, shape, fmt)


def data(name, index, shape, dt=DT_FLOAT):
    return NodeIR(name, "Data", [], ["x"], [desc(shape, dt)], ["y"], [desc(shape, dt)],
                  {"index": AttrValue("i", index)})


def const(name, tensor, dt):
    return NodeIR(name, "Const", [], [], [], ["y"], [desc(tuple(tensor.shape), dt)],
                  {"value": AttrValue("t", ConstTensor(tensor, dt))})


def node(name, type_, inputs, input_names, out_desc, attrs=None, output_names=("y",)):
    return NodeIR(name, type_, [(n, 0) for n in inputs], list(input_names),
                  [n.output_descs[0] for n in inputs], list(output_names), [out_desc], dict(attrs or {}))


def non_default_attrs(op: spec.OpSpec) -> dict[str, AttrValue]:
    """Every attribute of `op` under its IR name, with a value that is not its default where one exists."""
    out = {}
    for k, a in enumerate(op.attrs):
        if a.type == "float":
            out[a.ir] = AttrValue("f", 0.1 + k)  # not exact in float32: the file holds the float32 value
        elif a.type == "bool":
            out[a.ir] = AttrValue("b", not a.default if a.default is not None else False)
        elif a.type == "int":  # a row operator's axis
            out[a.ir] = AttrValue("i", 0 if a.default != 0 else 1)
        else:
            choice = next(c for c in a.choices if c != a.default)
            out[a.ir] = AttrValue("s", a.ir_value(choice))
    return out


def op_graph(op: spec.OpSpec, shape=(2, 3), dt=DT_FLOAT) -> GraphIR:
    """Two inputs (the second of unknown shape when `shape` is None) into one actgrad operator."""
    g = GraphIR(f"g_{op.name}")
    a = data("a", 0, shape, dt)
    b = data("b", 1, None if shape is None else shape, dt)
    n = node(f"{op.op_type}_2", op.op_type, [a, b], op.inputs, desc(shape, dt), non_default_attrs(op),
             (op.output,))
    g.nodes = [a, b, n]
    g.outputs = [(n, 0)]
    return g


def small_graph() -> GraphIR:
    """Data x, Data dy, a scalar Const, Mul(dy, 2), HardtanhGrad(x, Mul): the readable/txt reference graph."""
    g = GraphIR("g")
    x, dy = data("x", 0, (2, 3)), data("dy", 1, (2, 3))
    c = const("Const_0", torch.tensor(2.0), DT_FLOAT)
    m = node("Mul_1", "Mul", [dy, c], ["x1", "x2"], desc((2, 3)))
    h = node("ActgradHardtanhGrad_2", "ActgradHardtanhGrad", [x, m], ["result", "grad"], desc((2, 3)),
             {"min_val": AttrValue("f", -1.0), "max_val": AttrValue("f", 1.0)})
    g.nodes = [x, dy, c, m, h]
    g.outputs = [(h, 0)]
    return g


def rich_graph() -> GraphIR:
    """Everything the IR can hold: every actgrad operator, fp16/bf16/bool/int64 constants, unknown rank and unknown
    dims, every attribute kind, graph attributes, a graph output listed twice and a node with two outputs."""
    g = GraphIR("rich", graph_id=7)
    x = data("x", 0, (-1, 8))
    y = data("y", 1, None)
    h = data("h", 2, (4,), DT_FLOAT16)
    g.nodes = [x, y, h]
    for k, op in enumerate(spec.OPS):
        g.nodes.append(node(f"{op.op_type}_{k}", op.op_type, [x, y], op.inputs, desc((-1, 8)),
                            non_default_attrs(op), (op.output,)))
    c16 = const("c16", torch.tensor([1.5, -2.0, 0.25, 65504.0], dtype=torch.float16), DT_FLOAT16)
    cbf = const("cbf", torch.tensor([[1.0, -3.5]], dtype=torch.bfloat16), DT_BF16)
    cb = const("cb", torch.tensor([True, False, True]), DT_BOOL)
    ci = const("ci", torch.arange(-3, 9, dtype=torch.int64).reshape(3, 4), DT_INT64)
    mul = node("Mul_h", "Mul", [h, c16], ["x1", "x2"], desc((4,), DT_FLOAT16))
    kinds = {"s": AttrValue("s", "gelu_tanh"), "empty_s": AttrValue("s", ""), "i": AttrValue("i", -5),
             "f": AttrValue("f", float("inf")), "b": AttrValue("b", False),
             "li": AttrValue("list_i", (1, -2, 3)), "lf": AttrValue("list_f", (0.5, -0.1)),
             "ls": AttrValue("list_s", ("a", "bc")), "lb": AttrValue("list_b", (True, False)),
             "t": AttrValue("t", ConstTensor(torch.tensor([1.0, 2.0]), DT_FLOAT)),
             "_private": AttrValue("i", 3)}
    split = NodeIR("Split_kinds", "SplitD", [(x, 0)], ["x"], [x.output_descs[0]], ["y0", "y1"],
                   [desc((-1, 4)), desc((-1, 4))], kinds)
    cast = node("Cast_b", "Cast", [cb], ["x"], desc((3,)), {"dst_type": AttrValue("i", DT_FLOAT)})
    g.nodes += [c16, cbf, cb, ci, mul, split, cast]
    g.outputs = [(g.nodes[3], 0), (mul, 0), (split, 1), (split, 0), (mul, 0), (cbf, 0), (ci, 0), (cast, 0)]
    g.attrs = {"note": AttrValue("s", "made by tests"), "level": AttrValue("i", 2)}
    return g


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _attr_key(v: AttrValue):
    if v.kind == "t":
        t = v.value
        return ("t", t.data_type, t.format, str(t.data.dtype), tuple(t.data.shape), t.data.reshape(-1).tolist())
    if v.kind == "f":
        return ("f", f32(v.value))
    if v.kind == "list_f":
        return ("list_f", tuple(f32(x) for x in v.value))
    return (v.kind, v.value)


def canonical(g: GraphIR):
    """A comparable form of a graph: floats as float32 (what GE stores), nodes by name."""
    def d(x):
        return (x.data_type, x.shape, x.format)

    nodes = [(n.name, n.type, [(s.name, i) for s, i in n.inputs], list(n.input_names), [d(x) for x in n.input_descs],
              list(n.output_names), [d(x) for x in n.output_descs], [(k, _attr_key(v)) for k, v in n.attrs.items()])
             for n in g.nodes]
    return (g.name, nodes, [(s.name, i) for s, i in g.outputs], sorted((k, _attr_key(v)) for k, v in g.attrs.items()))


def assert_same(a: GraphIR, b: GraphIR):
    ca, cb = canonical(a), canonical(b)
    assert ca[0] == cb[0] and ca[2] == cb[2] and ca[3] == cb[3]
    assert len(ca[1]) == len(cb[1])
    for x, y in zip(ca[1], cb[1]):
        assert x == y, f"node {x[0]!r} differs"
