"""AIR files (actgrad.ge.graph._air): GE's ge.proto ModelDef written as GE's Graph::SaveToFile writes it and read
back. The bytes are checked twice: through the descriptors built in code, and with a hand-written protobuf wire
reader against the field numbers of ge_ir.proto (hicann/ge graph_metadef/proto/ge_ir.proto), so a wrong number in
the schema fails here."""
from __future__ import annotations

import struct

import pytest
import torch

import ge_graphs as G
from actgrad import spec
from actgrad.ge.graph import _air, _dtypes
from actgrad.ge.graph import _ge_ir_proto as pb
from actgrad.ge.graph._ir import AttrValue

# ge_ir.proto's DataType enum and GE's C++/Python DataType (types.h / ge/graph/types.py), copied from the sources.
PROTO_DT = {"DT_UNDEFINED": 0, "DT_FLOAT": 1, "DT_FLOAT16": 2, "DT_INT8": 3, "DT_UINT8": 4, "DT_INT16": 5,
            "DT_UINT16": 6, "DT_INT32": 7, "DT_INT64": 8, "DT_UINT32": 9, "DT_UINT64": 10, "DT_BOOL": 11,
            "DT_DOUBLE": 12, "DT_STRING": 13, "DT_COMPLEX64": 16, "DT_COMPLEX128": 17, "DT_BF16": 27, "DT_INT4": 28,
            "DT_HIFLOAT8": 33, "DT_HIFLOAT4": 41}
GE_DT = {"DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_INT8": 2, "DT_INT32": 3, "DT_UINT8": 4, "DT_INT16": 6, "DT_UINT16": 7,
         "DT_UINT32": 8, "DT_INT64": 9, "DT_UINT64": 10, "DT_DOUBLE": 11, "DT_BOOL": 12, "DT_STRING": 13,
         "DT_COMPLEX64": 16, "DT_COMPLEX128": 17, "DT_BF16": 27, "DT_UNDEFINED": 28, "DT_INT4": 29,
         "DT_HIFLOAT8": 34, "DT_HIFLOAT4": 42}


# ------------------------------------------------------------------------------------------- a tiny wire reader
def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos


def wire(buf: bytes) -> list[tuple[int, int, object]]:
    """(field number, wire type, value) for each field of one message: varints as int, LEN as bytes,
    fixed32 as bytes."""
    out, pos = [], 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, pos = _varint(buf, pos)
        elif wt == 2:
            n, pos = _varint(buf, pos)
            val, pos = buf[pos:pos + n], pos + n
        elif wt == 5:
            val, pos = buf[pos:pos + 4], pos + 4
        elif wt == 1:
            val, pos = buf[pos:pos + 8], pos + 8
        else:
            raise AssertionError(f"wire type {wt}")
        out.append((num, wt, val))
    return out


def fields(buf: bytes, num: int) -> list:
    return [v for n, _, v in wire(buf) if n == num]


def one(buf: bytes, num: int):
    vals = fields(buf, num)
    assert len(vals) == 1, (num, vals)
    return vals[0]


def attr_map(buf: bytes, num: int) -> dict[str, bytes]:
    """A map<string, AttrDef> field: entries with key = 1, value = 2."""
    return {one(e, 1).decode(): one(e, 2) for e in fields(buf, num)}


def signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def packed(buf: bytes) -> list[int]:
    """A packed repeated int64 (proto3 packs repeated scalars)."""
    out, pos = [], 0
    while pos < len(buf):
        v, pos = _varint(buf, pos)
        out.append(signed(v))
    return out


# ------------------------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("op", spec.OPS, ids=[op.name for op in spec.OPS])
@pytest.mark.parametrize("shape,dt", [((2, 3), G.DT_FLOAT), (None, G.DT_FLOAT16), ((-1, 5), G.DT_BF16)])
def test_round_trip_every_operator(tmp_path, op, shape, dt):
    g = G.op_graph(op, shape, dt)
    path = tmp_path / "g.air"
    _air.save_to_air(g, str(path))
    back = _air.load_from_air(str(path))
    G.assert_same(g, back)
    n = back.nodes[2]
    assert [a for a in n.attrs] == [a.ir for a in op.attrs]  # IR order kept (from _ir_attr_names)
    for a in op.attrs:
        want = g.nodes[2].attrs[a.ir]
        if a.type == "float":
            assert n.attrs[a.ir] == AttrValue("f", G.f32(want.value)) and n.attrs[a.ir].value != want.value
        else:
            assert n.attrs[a.ir] == want


def test_round_trip_rich_graph(tmp_path):
    g = G.rich_graph()
    path = tmp_path / "sub" / "rich.air"  # the directory is created, as GE's Model::SaveToFile does
    _air.save_to_air(g, str(path))
    back = _air.load_from_air(str(path))
    G.assert_same(g, back)
    by_name = {n.name: n for n in back.nodes}
    assert by_name["cbf"].attrs["value"].value.data.dtype == torch.bfloat16
    assert by_name["c16"].attrs["value"].value.data.tolist() == [1.5, -2.0, 0.25, 65504.0]
    assert by_name["y"].output_descs[0].shape is None and by_name["x"].output_descs[0].shape == (-1, 8)
    assert back.outputs[1][0] is back.outputs[4][0]  # the same tensor listed twice stays one node


def test_nodes_in_any_order_are_sorted(tmp_path):
    g = G.small_graph()
    model = pb.ModelDef()
    path = tmp_path / "g.air"
    _air.save_to_air(g, str(path))
    model.ParseFromString(path.read_bytes())
    ops = list(model.graph[0].op)
    del model.graph[0].op[:]
    model.graph[0].op.extend(reversed(ops))  # NetOutput first, every node before its sources
    path.write_bytes(model.SerializeToString())
    back = _air.load_from_air(str(path))
    G.assert_same(g, back)  # GE's ids (topological positions) restore the original order

    for op in model.graph[0].op:
        op.ClearField("id")  # without ids: any order in which every node follows its sources
    path.write_bytes(model.SerializeToString())
    back = _air.load_from_air(str(path))
    seen = set()
    for n in back.nodes:
        assert all(src.name in seen for src, _ in n.inputs), n.name
        seen.add(n.name)
    order = [n.name for n in back.nodes]
    assert order == ["Const_0", "dy", "Mul_1", "x", "ActgradHardtanhGrad_2"]
    by_name = {n.name: n for n in g.nodes}
    g.nodes = [by_name[name] for name in order]
    G.assert_same(g, back)


# ------------------------------------------------------------------------------------------- what the file holds
@pytest.fixture
def small_air(tmp_path):
    path = tmp_path / "small.air"
    _air.save_to_air(G.small_graph(), str(path))
    return path.read_bytes()


def test_parsed_with_descriptors_as_ge_writes(small_air):
    model = pb.ModelDef()
    model.ParseFromString(small_air)
    assert (model.name, model.version, model.custom_version) == ("", 0, "")
    assert {k: model.attr[k].WhichOneof("value") for k in model.attr} == {
        "memory_size": "i", "p2p_memory_size": "i", "stream_num": "i", "event_num": "i", "label_num": "i",
        "weight_size": "i", "target_type": "s"}
    assert model.attr["target_type"].s == b"MINI"
    (graph,) = model.graph
    assert list(graph.input) == ["x:0", "dy:0"] and list(graph.output) == ["ActgradHardtanhGrad_2:0"]
    ops = {op.name: op for op in graph.op}
    assert [op.name for op in graph.op] == ["x", "dy", "Const_0", "Mul_1", "ActgradHardtanhGrad_2", "NetOutput_g"]
    assert [op.id for op in graph.op] == list(range(6))
    assert list(ops["x"].input) == [""]  # Data's IR input x has no edge
    assert list(ops["Mul_1"].input) == ["dy:0", "Const_0:0"]
    net = ops["NetOutput_g"]
    assert net.type == "NetOutput" and list(net.input) == ["ActgradHardtanhGrad_2:0"]
    assert list(net.attr["_ir_inputs_key"].list.s) == [b"x"] and list(net.attr["_ir_inputs_value"].list.i) == [2]
    assert list(net.attr["_input_name_key"].list.s) == [b"x0"] and not net.output_desc
    h = ops["ActgradHardtanhGrad_2"]
    assert list(h.attr["_input_name_key"].list.s) == [b"grad", b"result"]  # a std::map: sorted by name
    assert list(h.attr["_input_name_value"].list.i) == [1, 0]
    assert list(h.attr["_ir_attr_names"].list.s) == [b"min_val", b"max_val"]
    assert h.attr["min_val"].f == -1.0 and h.attr["max_val"].WhichOneof("value") == "f"
    assert ops["x"].attr["index"].i == 0 and ops["dy"].attr["index"].i == 1
    value = ops["Const_0"].attr["value"].t
    assert value.desc.dtype == 1 and list(value.desc.shape.dim) == [] and value.data == struct.pack("<f", 2.0)
    d = h.output_desc[0]
    assert (d.dtype, list(d.shape.dim), d.layout, d.device_type) == (1, [2, 3], "ND", "NPU")
    assert d.attr["origin_format"].s == b"ND" and d.attr["format_for_int"].i == 2
    assert d.attr["origin_data_type"].s == b"DT_FLOAT" and d.attr["origin_shape_initialized"].b
    assert list(d.attr["origin_shape"].list.i) == [2, 3]
    assert d.attr["origin_shape"].list.val_type == pb.ListValue.VT_LIST_INT


def test_wire_field_numbers(small_air):
    """ModelDef.graph = 7, GraphDef name/input/output/op = 1/4/5/6, OpDef name/type/input/attr/id/input_desc/
    output_desc = 1/2/5/10/21/33/34, TensorDescriptor dtype/shape/layout/device_type = 2/3/4/14, ShapeDef.dim = 1,
    AttrDef s/i/f/b/list/t = 2/3/4/5/1/12, ListValue s/i/val_type = 2/3/20, TensorDef desc/data = 1/2."""
    model_attrs = attr_map(small_air, 11)
    assert one(model_attrs["target_type"], 2) == b"MINI" and one(model_attrs["memory_size"], 3) == 0
    graph = one(small_air, 7)
    assert one(graph, 1) == b"g"
    assert fields(graph, 4) == [b"x:0", b"dy:0"] and fields(graph, 5) == [b"ActgradHardtanhGrad_2:0"]
    ops = {one(op, 1).decode(): op for op in fields(graph, 6)}
    h = ops["ActgradHardtanhGrad_2"]
    assert one(h, 2) == b"ActgradHardtanhGrad" and one(h, 21) == 4
    assert fields(h, 5) == [b"x:0", b"Mul_1:0"]
    attrs = attr_map(h, 10)
    assert struct.unpack("<f", one(attrs["min_val"], 4))[0] == -1.0
    key_list = one(attrs["_input_name_key"], 1)
    assert fields(key_list, 2) == [b"grad", b"result"]
    out_desc = one(h, 34)
    assert one(out_desc, 2) == 1 and one(out_desc, 4) == b"ND" and one(out_desc, 14) == b"NPU"
    assert packed(one(one(out_desc, 3), 1)) == [2, 3]
    origin_shape = one(attr_map(out_desc, 5)["origin_shape"], 1)
    assert one(origin_shape, 20) == 2 and packed(one(origin_shape, 3)) == [2, 3]  # VT_LIST_INT, ListValue.i
    assert packed(one(one(attrs["_input_name_value"], 1), 3)) == [1, 0]
    assert len(fields(h, 33)) == 2
    assert one(attr_map(ops["x"], 10)["index"], 3) == 0
    tensor = one(attr_map(ops["Const_0"], 10)["value"], 12)
    assert one(tensor, 2) == struct.pack("<f", 2.0) and one(one(tensor, 1), 2) == 1


def test_wire_data_types(tmp_path):
    """bf16, fp16 and bool tensors carry the proto's numbers (27, 2, 11), not the Python enum's (27, 1, 12)."""
    path = tmp_path / "rich.air"
    _air.save_to_air(G.rich_graph(), str(path))
    graph = one(path.read_bytes(), 7)
    ops = {one(op, 1).decode(): op for op in fields(graph, 6)}
    for name, proto_dt in (("cbf", 27), ("c16", 2), ("cb", 11), ("ci", 8), ("h", 2), ("x", 1)):
        assert one(one(ops[name], 34), 2) == proto_dt, name
    split_attrs = attr_map(ops["Split_kinds"], 10)
    assert one(split_attrs["b"], 5) == 0 and signed(one(split_attrs["i"], 3)) == -5
    assert one(split_attrs["s"], 2) == b"gelu_tanh"
    lf = one(split_attrs["lf"], 1)
    assert one(lf, 20) == 3 and struct.unpack("<2f", one(lf, 4)) == (0.5, G.f32(-0.1))


def test_data_type_numbering_both_ways():
    for name, proto in PROTO_DT.items():
        dt = _dtypes.BY_PROTO[proto]
        assert dt.name == name and dt.ge == GE_DT[name]
        assert _dtypes.BY_GE[GE_DT[name]].proto == proto
        assert pb.TensorDescriptor.DESCRIPTOR.fields_by_name["dtype"].enum_type.values_by_name[name].number == proto
    assert _dtypes.BY_GE[27].serial == "DT_BFLOAT16"  # GE's serial string for DT_BF16
    assert len(_dtypes.BY_GE) == len(_dtypes.BY_PROTO) == len(_dtypes.DTYPES)


# ------------------------------------------------------------------------------------------- bad input
def test_malformed_file_names_the_path(tmp_path):
    path = tmp_path / "bad.air"
    path.write_bytes(b"\x0a\xff\xff\xff")  # field 1, length far past the end
    with pytest.raises(ValueError, match="bad.air.*not an AIR file"):
        _air.load_from_air(str(path))
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="bad.air.*no graph"):
        _air.load_from_air(str(path))
    with pytest.raises(FileNotFoundError, match="missing.air"):
        _air.load_from_air(str(tmp_path / "missing.air"))


def _edited(tmp_path, edit):
    path = tmp_path / "e.air"
    _air.save_to_air(G.small_graph(), str(path))
    model = pb.ModelDef()
    model.ParseFromString(path.read_bytes())
    edit({op.name: op for op in model.graph[0].op})
    path.write_bytes(model.SerializeToString())
    return str(path)


@pytest.mark.parametrize("edit,message", [
    (lambda ops: ops["x"].input.__setitem__(0, "ActgradHardtanhGrad_2:0"), "form a cycle"),
    (lambda ops: ops["Mul_1"].input.__setitem__(0, "nowhere:0"), "there is no node 'nowhere'"),
    (lambda ops: ops["Mul_1"].input.__setitem__(0, "dy"), "is not 'node:index'"),
    (lambda ops: ops["Mul_1"].input.append("x:-1"), "control edges"),
    (lambda ops: ops["Mul_1"].output_desc[0].__setattr__("dtype", 99), "dtype 99"),
    (lambda ops: ops["Mul_1"].attr["odd"].list_list_int.list_list_i.add(), "kind 'list_list_int'"),
    (lambda ops: ops["Const_0"].attr["value"].t.__setattr__("data", b"\0"), "1 bytes of data"),
])
def test_bad_content_is_reported(tmp_path, edit, message):
    path = _edited(tmp_path, edit)
    with pytest.raises(ValueError, match=message) as info:
        _air.load_from_air(path)
    assert "e.air" in str(info.value)


def test_unwritable_graph_is_reported(tmp_path):
    g = G.small_graph()
    g.nodes[3].name = "x"
    with pytest.raises(ValueError, match=r"unique, repeated: \['x'\]"):
        _air.save_to_air(g, str(tmp_path / "g.air"))
    g = G.small_graph()
    g.nodes[3].output_descs[0] = G.desc((2, 3), dt=5)  # 5 is reserved in GE's enum
    with pytest.raises(ValueError, match="node 'Mul_1' output 0: data type 5"):
        _air.save_to_air(g, str(tmp_path / "g.air"))
