"""Graph dumps (actgrad.ge.graph._dump): GE's file names and directories, GE's readable text and kTxt text, and the
ONNX model, checked with onnx.checker and read back field by field against the GraphIR."""
from __future__ import annotations

import os
import re
from pathlib import Path

import onnx
import pytest
import torch
from google.protobuf import text_format
from onnx import numpy_helper

import ge_graphs as G
from actgrad import spec
from actgrad.ge.graph import _dump, _onnx
from actgrad.ge.graph import _ge_ir_proto as pb
from actgrad.ge.graph._ir import GraphIR

F = _dump.DumpFormat
DATA = Path(__file__).resolve().parent / "data"
ONNX_TYPES = {0: onnx.TensorProto.FLOAT, 1: onnx.TensorProto.FLOAT16, 27: onnx.TensorProto.BFLOAT16,
              12: onnx.TensorProto.BOOL, 9: onnx.TensorProto.INT64}
GE_SERIAL = {0: "DT_FLOAT", 1: "DT_FLOAT16", 27: "DT_BFLOAT16", 12: "DT_BOOL", 9: "DT_INT64"}

SMALL_READABLE = '''graph("g"):
  %x : [#users=1] = Node[type=Data] (attrs = {index: 0})
  %dy : [#users=1] = Node[type=Data] (attrs = {index: 1})
  %Const_0 : [#users=1] = Node[type=Const] (attrs = {value: [2.000000]})
  %Mul_1 : [#users=1] = Node[type=Mul] (inputs = (x1=%dy, x2=%Const_0))
  %ActgradHardtanhGrad_2 : [#users=1] = Node[type=ActgradHardtanhGrad] (inputs = (result=%x, grad=%Mul_1), \
attrs = {min_val: -1.000000, max_val: 1.000000})

  return (%ActgradHardtanhGrad_2)
'''


def tiny_graph() -> GraphIR:
    g = GraphIR("tiny")
    x = G.data("x", 0, (3,))
    g.nodes, g.outputs = [x], [(x, 0)]
    return g


def test_dump_format_values():
    assert [(f.name, f.value) for f in F] == [("kOnnx", 0), ("kTxt", 1), ("kReadable", 2)]
    with pytest.raises(TypeError, match="format must be a DumpFormat"):
        _dump.dump_to_stream(G.small_graph(), 2)
    with pytest.raises(TypeError, match="suffix must be a str"):
        _dump.dump_to_file(G.small_graph(), F.kTxt, 3)


# ------------------------------------------------------------------------------------------- readable / kTxt text
def test_readable_small_graph_exact():
    assert _dump.dump_to_stream(G.small_graph(), F.kReadable) == SMALL_READABLE


def test_readable_layout_details():
    text = _dump.dump_to_stream(G.rich_graph(), F.kReadable)
    lines = text.splitlines()
    split = next(line for line in lines if line.startswith("  %Split_kinds "))
    assert split.startswith("  %Split_kinds : [#users=2] = Node[type=SplitD] (inputs = (x=%x), attrs = {")
    # IR order; the empty string and the private attribute are left out; floats as %f, lists in braces
    assert split.endswith('attrs = {s: "gelu_tanh", i: -5, f: inf, b: false, li: {1, -2, 3}, '
                          'lf: {0.500000, -0.100000}, ls: {"a", "bc"}, lb: {true, false}, t: [1.000000 2.000000]})')
    assert "  %ret : [#users=1] = get_element[node=%Split_kinds](0)" in lines
    assert "  %ret_1 : [#users=1] = get_element[node=%Split_kinds](1)" in lines
    assert "  %ci : [#users=1] = Node[type=Const] (attrs = {value: [-3 -2 -1 ... 6 7 8]})" in lines  # 12 values
    assert "  %cbf : [#users=1] = Node[type=Const] (attrs = {value: <not_supported>})" in lines  # as GE for bf16
    assert "  %cb : [#users=1] = Node[type=Const] (attrs = {value: [true false true]})" in lines
    assert "  %y : [#users=1] = Node[type=Data] (attrs = {index: 1})" in lines
    assert lines[-1] == ("  return (output_0=%ActgradHardtanhGrad_0, output_1=%Mul_h, output_2=%ret_1, output_3=%ret, "
                         "output_4=%Mul_h, output_5=%cbf, output_6=%ci, output_7=%Cast_b)")
    assert lines[-2] == "" and text.endswith(")\n")
    gelu = next(line for line in lines if "ActgradGeluBackward" in line)
    assert gelu.endswith('attrs = {mode: "gelu_tanh"})')


def test_readable_port_without_name():
    g = G.small_graph()
    g.nodes[3].input_names = []
    assert "  %Mul_1 : [#users=1] = Node[type=Mul] (inputs = (_input_0=%dy, _input_1=%Const_0))\n" in \
        _dump.dump_to_stream(g, F.kReadable)


def test_readable_without_outputs_has_no_return():
    g = tiny_graph()
    g.outputs = []
    assert _dump.dump_to_stream(g, F.kReadable) == 'graph("tiny"):\n  %x : [#users=1] = Node[type=Data] ' \
                                                     '(attrs = {index: 0})\n'


def test_ktxt_tiny_graph_exact():
    assert _dump.dump_to_stream(tiny_graph(), F.kTxt) == (DATA / "ge_dump_tiny_ktxt.txt").read_text()


def test_ktxt_is_ges_dump_model():
    text = _dump.dump_to_stream(G.small_graph(), F.kTxt)
    model = text_format.Parse(text, pb.ModelDef())
    assert model.version == 1  # Model("", "") of Graph::Dump, not the AIR's 0
    ops = {op.name: op for op in model.graph[0].op}
    assert "value" not in ops["Const_0"].attr  # GE's dump leaves the weights out
    peer = {name: list(op.attr["_src_out_peer_index_for_ge_txt_load"].list.i) for name, op in ops.items()}
    assert peer == {"x": [-1], "dy": [-1], "Const_0": [], "Mul_1": [0, 0], "ActgradHardtanhGrad_2": [0, 0],
                    "NetOutput_g": [0]}


# ------------------------------------------------------------------------------------------- file names
def test_file_names_in_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DUMP_GRAPH_PATH", raising=False)
    g = G.small_graph()
    g.graph_id = 3
    paths = {f: [_dump.dump_to_file(g, f, "after:build") for _ in range(2)] for f in F}
    pattern = {F.kOnnx: r"ge_onnx_(\d{8})_graph_3_after_build\.onnx", F.kTxt: r"ge_proto_(\d{8})_graph_3_after_build\.txt",
               F.kReadable: r"ge_readable_(\d{8})_graph_3_after_build\.txt"}
    for f, (first, second) in paths.items():
        assert os.path.dirname(first) == str(tmp_path)
        m1, m2 = re.fullmatch(pattern[f], os.path.basename(first)), re.fullmatch(pattern[f], os.path.basename(second))
        assert m1 and m2 and int(m2.group(1)) == int(m1.group(1)) + 1  # one counter per format
        assert os.stat(first).st_mode & 0o777 == 0o600
    assert Path(paths[F.kReadable][0]).read_text() == SMALL_READABLE
    assert Path(paths[F.kTxt][0]).read_text() == _dump.dump_to_stream(g, F.kTxt)
    assert onnx.load(paths[F.kOnnx][0]) == _onnx.to_model(g)  # the file is the binary ModelProto


def test_file_names_under_dump_graph_path(tmp_path, monkeypatch):
    monkeypatch.setenv("DUMP_GRAPH_PATH", str(tmp_path / "dumps"))
    path = _dump.dump_to_file(G.small_graph(), F.kReadable, 'a/b\\c*d?e"f<g>h|i')
    directory = tmp_path / "dumps" / f"pid_{os.getpid()}_deviceid_0"
    assert os.path.dirname(path) == str(directory)
    assert re.fullmatch(r"ge_readable_\d{8}_graph_0_a_b_c_d_e_f_g_h_i\.txt", os.path.basename(path))


def test_long_suffix_is_cut(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DUMP_GRAPH_PATH", raising=False)
    path = _dump.dump_to_file(G.small_graph(), F.kOnnx, "s" * 400)
    name = os.path.basename(path)
    assert len(name) < 255 and name.endswith(".onnx") and os.path.exists(path)


# ------------------------------------------------------------------------------------------- ONNX
def test_onnx_checker_accepts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DUMP_GRAPH_PATH", raising=False)
    for g in (G.small_graph(), G.rich_graph(), *(G.op_graph(op, None) for op in spec.OPS)):
        path = _dump.dump_to_file(g, F.kOnnx, "")
        model = onnx.load(path)
        onnx.checker.check_model(model, full_check=True)
        onnx.checker.check_model(path, full_check=True)
    text = _dump.dump_to_stream(G.small_graph(), F.kOnnx)
    assert text_format.Parse(text, onnx.ModelProto()) == _onnx.to_model(G.small_graph())


def _attr_value(a: onnx.AttributeProto):
    return onnx.helper.get_attribute_value(a)


def _check_desc(attrs, prefix, k, d):
    assert attrs[f"{prefix}_desc_dtype:{k}"] == GE_SERIAL[d.data_type].encode()
    assert attrs[f"{prefix}_desc_shape:{k}"] == ([-2] if d.shape is None else list(d.shape))
    assert attrs[f"{prefix}_desc_layout:{k}"] == b"ND"


def _check_type(vi: onnx.ValueInfoProto, d):
    tt = vi.type.tensor_type
    assert tt.elem_type == ONNX_TYPES[d.data_type], vi.name
    if d.shape is None:
        assert not tt.HasField("shape"), vi.name
    else:
        dims = [(x.HasField("dim_value"), x.dim_value, x.HasField("dim_param")) for x in tt.shape.dim]
        assert dims == [(n >= 0, max(n, 0), False) for n in d.shape], vi.name


def test_onnx_round_trips_the_graph():
    g = G.rich_graph()
    model = onnx.ModelProto()
    model.ParseFromString(_onnx.to_model(g).SerializeToString())
    assert model.ir_version == 8 and {(o.domain, o.version) for o in model.opset_import} == {
        ("", 17), ("actgrad", 1), ("ge", 1)}
    assert {p.key: p.value for p in model.metadata_props} == {
        "graph_outputs": ",".join(f"{s.name}:{i}" for s, i in g.outputs),
        "attr:note": '"made by tests"', "attr:level": "2"}
    graph = model.graph
    nodes = {n.name: n for n in graph.node}
    types = {vi.name: vi for vi in [*graph.input, *graph.output, *graph.value_info]}
    for n in g.nodes:
        p = nodes[n.name]
        assert list(p.output) == [f"{n.name}:{k}" for k in range(len(n.output_descs))]
        for k, d in enumerate(n.output_descs):
            _check_type(types[f"{n.name}:{k}"], d)
        if n.type == "Const":
            assert (p.op_type, p.domain) == ("Constant", "")
            value = n.attrs["value"].value
            got = numpy_helper.to_array(p.attribute[0].t) if value.data_type != 27 else None
            if got is not None:
                assert torch.equal(torch.from_numpy(got.copy()), value.data)
            else:
                assert p.attribute[0].t.raw_data == value.data.view(torch.uint16).numpy().tobytes()
            continue
        assert p.op_type == n.type
        assert p.domain == ("actgrad" if n.type.startswith("Actgrad") else "ge")
        attrs = {a.name: _attr_value(a) for a in p.attribute}
        assert [a.name for a in p.attribute] == sorted(attrs)
        A = onnx.AttributeProto
        want_types = {"f": A.FLOAT, "i": A.INT, "b": A.INT, "s": A.STRING, "t": A.TENSOR, "list_f": A.FLOATS,
                      "list_i": A.INTS, "list_b": A.INTS, "list_s": A.STRINGS}
        assert {a.name: a.type for a in p.attribute if a.name in n.attrs} == {
            k: want_types[v.kind] for k, v in n.attrs.items()}
        if n.type == "Data":
            assert list(p.input) == ([n.name] if n.output_descs[0].shape is not None else [])
        else:
            assert list(p.input) == [f"{s.name}:{i}" for s, i in n.inputs]
        for name, v in n.attrs.items():
            got = attrs[name]
            if v.kind == "f":
                assert got == G.f32(v.value)
            elif v.kind == "list_f":
                assert got == [G.f32(x) for x in v.value]
            elif v.kind in ("b", "list_b"):
                assert got == (int(v.value) if v.kind == "b" else [int(x) for x in v.value])
            elif v.kind == "s":
                assert got == v.value.encode()
            elif v.kind == "list_s":
                assert got == [x.encode() for x in v.value]
            elif v.kind == "t":
                assert torch.equal(torch.from_numpy(numpy_helper.to_array(got).copy()), v.value.data)
            else:
                assert got == (list(v.value) if v.kind == "list_i" else v.value)
        assert attrs["input_desc_nums"] == len(n.input_descs) and attrs["output_desc_nums"] == len(n.output_descs)
        for k, d in enumerate(n.input_descs):
            _check_desc(attrs, "input", k, d)
        for k, d in enumerate(n.output_descs):
            _check_desc(attrs, "output", k, d)
        assert attrs["_input_name_key"] == [x.encode() for x in n.input_names]
        assert attrs["_output_name_key"] == [x.encode() for x in n.output_names]
    # graph inputs: the Data nodes of known rank; y (unknown rank) is a source node
    assert [vi.name for vi in graph.input] == ["x", "h"]
    _check_type(graph.input[0], g.nodes[0].input_descs[0])
    # outputs: known-rank ones, the repeated Mul_h:0 through an Identity
    assert [vi.name for vi in graph.output] == ["ActgradHardtanhGrad_0:0", "Mul_h:0", "Split_kinds:1",
                                                 "Split_kinds:0", "Mul_h:0/output_4", "cbf:0", "ci:0", "Cast_b:0"]
    identity = nodes["Mul_h:0/output_4"]
    assert (identity.op_type, list(identity.input)) == ("Identity", ["Mul_h:0"])
    assert nodes["cbf"].doc_string == "GE Const, layout ND"


def test_onnx_unknown_rank_output_is_not_a_graph_output():
    g = G.op_graph(spec.OPS[0], None)
    model = _onnx.to_model(g)
    assert not model.graph.input and not model.graph.output
    out = {vi.name: vi for vi in model.graph.value_info}[f"{spec.OPS[0].op_type}_2:0"]
    assert not out.type.tensor_type.HasField("shape")
    onnx.checker.check_model(model, full_check=True)


def test_onnx_rejects_types_it_cannot_express():
    g = G.small_graph()
    g.nodes[3].output_descs[0] = G.desc((2, 3), dt=18)  # DT_QINT8
    with pytest.raises(ValueError, match="node 'Mul_1' output 0: data type DT_QINT8 has no ONNX element type"):
        _onnx.to_model(g)
