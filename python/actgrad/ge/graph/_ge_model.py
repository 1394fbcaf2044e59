"""GraphIR <-> ge.proto ModelDef, as GE's ModelSerializeImp writes and reads it (graph_metadef/graph/serialization/
model_serialize.cc, graph_metadef/graph/normal_graph/ge_tensor.cc).

What GE writes for a graph built with ES and saved with Graph::SaveToFile, and so what this writes:
- ModelDef: name "", version 0, custom_version "", attrs memory_size/p2p_memory_size/stream_num/event_num/label_num/
  weight_size = 0 and target_type = "MINI" (Model::Init), one GraphDef.
- GraphDef: name; input = the Data nodes as "name:0" in node order; output = the graph outputs as "node:index";
  one OpDef per node in node order, then the NetOutput node ES adds on build_and_reset ("NetOutput_<graph name>",
  dynamic input "x" with one instance x0, x1, ... per graph output, no outputs).
- OpDef: name, type, id (the node's position), input = one "node:index" per input port ("" for a port with no edge,
  as a Data node's "x"), input_desc/output_desc, and attr = the node's attributes plus GE's bookkeeping:
  _input_name_key/_input_name_value and _output_name_key/_output_name_value (port name -> index, sorted by name, as
  GE's std::map), _ir_inputs_key/_ir_inputs_value and _ir_outputs_key/_ir_outputs_value (IR ports; 0 = required,
  NetOutput's x is 2 = dynamic), _ir_attr_names (the node's public attributes in IR order).
- TensorDescriptor: dtype (ge.proto numbering), shape (unknown rank: the single dim -2), layout ("ND"),
  device_type "NPU", and attrs origin_format, origin_format_for_int, format_for_int, origin_data_type,
  origin_shape_initialized, origin_shape (the origin equals the tensor: graphs built here are not reformatted).
- Attributes: s (bytes), i, f (float32), b, t (TensorDef: desc + raw little-endian data) and lists with val_type
  VT_LIST_INT / FLOAT / STRING / BOOL (GE's reader drops a list whose val_type is VT_LIST_NONE).
The kTxt dump (Graph::DumpToFile/Dump with kTxt) is the same model saved "for dump": version 1, the Const nodes'
"value" left out and each OpDef carrying _src_out_peer_index_for_ge_txt_load.
"""
from __future__ import annotations

import math
import struct

import torch

from . import _dtypes
from . import _ge_ir_proto as pb
from ._ir import AttrValue, ConstTensor, GraphIR, NodeIR, TensorDescIR

UNKNOWN_RANK = -2  # GE's UNKNOWN_DIM_NUM: the single dim of a shape whose rank is unknown
NET_OUTPUT = "NetOutput"
_REQUIRED, _DYNAMIC = 0, 2  # ge::IrInputType kIrInputRequired, kIrInputDynamic
_SRC_OUT_PEER_INDEX = "_src_out_peer_index_for_ge_txt_load"
_META_ATTRS = ("_input_name_key", "_input_name_value", "_output_name_key", "_output_name_value", "_ir_inputs_key",
               "_ir_inputs_value", "_ir_outputs_key", "_ir_outputs_value", "_ir_attr_names", "_opt_input",
               _SRC_OUT_PEER_INDEX)
_MODEL_INT_ATTRS = ("memory_size", "p2p_memory_size", "stream_num", "event_num", "label_num", "weight_size")
_LIST_KINDS = {"list_i": ("i", pb.ListValue.VT_LIST_INT), "list_f": ("f", pb.ListValue.VT_LIST_FLOAT),
               "list_s": ("s", pb.ListValue.VT_LIST_STRING), "list_b": ("b", pb.ListValue.VT_LIST_BOOL)}
_KIND_OF_VT = {vt: kind for kind, (_, vt) in _LIST_KINDS.items()}


def net_output_name(graph: GraphIR) -> str:
    return f"{NET_OUTPUT}_{graph.name}"


# ---------------------------------------------------------------------------------------------- writing
def desc_to_proto(desc: TensorDescIR, out, what: str) -> None:
    dt = _dtypes.by_ge(desc.data_type, what)
    layout = _dtypes.format_name(desc.format, what)
    dims = [UNKNOWN_RANK] if desc.shape is None else list(desc.shape)
    out.dtype = dt.proto
    out.shape.SetInParent()
    out.shape.dim.extend(dims)
    out.layout = layout
    out.device_type = "NPU"
    attrs = out.attr
    attrs["origin_format"].s = layout.encode()
    attrs["origin_format_for_int"].i = desc.format
    attrs["format_for_int"].i = desc.format
    if dt is not _dtypes.DT_UNDEFINED:
        attrs["origin_data_type"].s = dt.serial.encode()
    attrs["origin_shape_initialized"].b = True
    attrs["origin_shape"].list.i.extend(dims)
    attrs["origin_shape"].list.val_type = pb.ListValue.VT_LIST_INT


def tensor_bytes(t: ConstTensor, what: str) -> bytes:
    dt = _dtypes.by_ge(t.data_type, what)
    data = t.data.detach().cpu()
    if dt.torch is None or data.dtype != dt.torch:
        raise ValueError(f"{what}: the constant's torch dtype {data.dtype} does not match its data type {dt.name}")
    return data.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def attr_to_proto(value: AttrValue, out, what: str) -> None:
    kind, v = value.kind, value.value
    if kind == "s":
        out.s = v.encode()
    elif kind == "i":
        out.i = v
    elif kind == "f":
        out.f = v
    elif kind == "b":
        out.b = v
    elif kind == "t":
        desc_to_proto(TensorDescIR(v.data_type, tuple(v.data.shape), v.format), out.t.desc, what)
        out.t.data = tensor_bytes(v, what)
    else:
        field, vt = _LIST_KINDS[kind]
        getattr(out.list, field).extend(x.encode() if kind == "list_s" else x for x in v)
        out.list.val_type = vt


def _name_index(attrs, key: str, names) -> None:
    """GE's input_name_idx_/output_name_idx_ (a std::map, so sorted by name) as two parallel lists."""
    pairs = sorted((n, i) for i, n in enumerate(names))
    attrs[key + "_key"].list.s.extend(n.encode() for n, _ in pairs)
    attrs[key + "_value"].list.i.extend(i for _, i in pairs)


def _ir_ports(attrs, key: str, names, kind: int) -> None:
    attrs[key + "_key"].list.s.extend(n.encode() for n in names)
    attrs[key + "_value"].list.i.extend(kind for _ in names)


def _port_count(node: NodeIR) -> int:
    return max(len(node.inputs), len(node.input_names), len(node.input_descs))


def _op_def(node: NodeIR, index: int, op, for_dump: bool) -> None:
    what = f"node {node.name!r}"
    op.name, op.type, op.id = node.name, node.type, index
    for k in range(_port_count(node)):
        op.input.append(f"{node.inputs[k][0].name}:{node.inputs[k][1]}" if k < len(node.inputs) else "")
    for k, d in enumerate(node.input_descs):
        desc_to_proto(d, op.input_desc.add(), f"{what} input {k}")
    for k, d in enumerate(node.output_descs):
        desc_to_proto(d, op.output_desc.add(), f"{what} output {k}")
    attrs = op.attr
    if node.input_names:
        _name_index(attrs, "_input_name", node.input_names)
    if node.output_names:
        _name_index(attrs, "_output_name", node.output_names)
    public = [n for n in node.attrs if not n.startswith("_")]
    if public:
        attrs["_ir_attr_names"].list.s.extend(n.encode() for n in public)
    if node.input_names:
        _ir_ports(attrs, "_ir_inputs", node.input_names, _REQUIRED)
    if node.output_names:
        _ir_ports(attrs, "_ir_outputs", node.output_names, _REQUIRED)
    for name, value in node.attrs.items():
        if for_dump and name == "value" and node.type in ("Const", "Constant"):
            continue  # GE's dump leaves the weights out (ModelSerializeImp::OpDescToAttrDef, not_dump_all)
        attr_to_proto(value, attrs[name], f"{what} attribute {name!r}")


def _net_output(graph: GraphIR, op, index: int) -> None:
    op.name, op.type, op.id = net_output_name(graph), NET_OUTPUT, index
    names = [f"x{k}" for k in range(len(graph.outputs))]
    for k, (src, idx) in enumerate(graph.outputs):
        op.input.append(f"{src.name}:{idx}")
        desc_to_proto(src.output_descs[idx], op.input_desc.add(), f"graph output {k}")
    _ir_ports(op.attr, "_ir_inputs", ["x"], _DYNAMIC)
    if names:
        _name_index(op.attr, "_input_name", names)


def _peer_indexes(gdef) -> None:
    """_src_out_peer_index_for_ge_txt_load: for each input port, its place among its source output's consumers."""
    consumers: dict[str, list[tuple[str, int]]] = {}
    for op in gdef.op:
        for k, src in enumerate(op.input):
            if src:
                consumers.setdefault(src, []).append((op.name, k))
    for op in gdef.op:
        peer = op.attr[_SRC_OUT_PEER_INDEX].list
        for k, src in enumerate(op.input):
            peer.i.append(consumers[src].index((op.name, k)) if src else -1)


def to_model_def(graph: GraphIR, for_dump: bool = False):
    """The ModelDef GE's Graph::SaveToFile writes (for_dump: the one Graph::Dump(kTxt) prints)."""
    names = [n.name for n in graph.nodes]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"graph {graph.name!r}: node names must be unique, repeated: {dup}")
    if net_output_name(graph) in names:
        raise ValueError(f"graph {graph.name!r}: node name {net_output_name(graph)!r} is GE's NetOutput's")
    model = pb.ModelDef(version=1 if for_dump else 0)
    for name in _MODEL_INT_ATTRS:
        model.attr[name].i = 0
    model.attr["target_type"].s = b"MINI"
    gdef = model.graph.add(name=graph.name)
    gdef.input.extend(f"{n.name}:0" for n in graph.nodes if n.type == "Data")
    gdef.output.extend(f"{src.name}:{idx}" for src, idx in graph.outputs)
    for name, value in graph.attrs.items():
        attr_to_proto(value, gdef.attr[name], f"graph {graph.name!r} attribute {name!r}")
    for k, node in enumerate(graph.nodes):
        _op_def(node, k, gdef.op.add(), for_dump)
    _net_output(graph, gdef.op.add(), len(graph.nodes))
    if for_dump:
        _peer_indexes(gdef)
    return model


# ---------------------------------------------------------------------------------------------- reading
def desc_from_proto(d, what: str) -> TensorDescIR:
    try:
        dt = _dtypes.BY_PROTO[d.dtype]
    except KeyError:
        raise ValueError(f"{what}: dtype {d.dtype} is not a ge.proto DataType") from None
    layout = d.layout or "ND"
    if layout not in _dtypes.FORMAT_VALUES:
        raise ValueError(f"{what}: layout {layout!r} is not a GE format")
    dims = tuple(d.shape.dim)
    return TensorDescIR(dt.ge, None if dims == (UNKNOWN_RANK,) else dims, _dtypes.FORMAT_VALUES[layout])


def tensor_from_proto(t, what: str) -> ConstTensor:
    desc = desc_from_proto(t.desc, what)
    dt = _dtypes.BY_GE[desc.data_type]
    if dt.torch is None:
        raise ValueError(f"{what}: constants of data type {dt.name} are not supported")
    if desc.shape is None or any(d < 0 for d in desc.shape):
        raise ValueError(f"{what}: a constant needs a known shape, the file has {list(t.desc.shape.dim)}")
    size = math.prod(desc.shape) * torch.empty((), dtype=dt.torch).element_size()
    if len(t.data) != size:
        raise ValueError(f"{what}: {len(t.data)} bytes of data for a {dt.name} tensor of shape "
                         f"{list(desc.shape)} ({size} bytes)")
    data = torch.frombuffer(bytearray(t.data), dtype=dt.torch) if size else torch.empty(0, dtype=dt.torch)
    return ConstTensor(data.reshape(desc.shape).clone(), dt.ge, desc.format)


def _float32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def attr_from_proto(a, what: str) -> AttrValue | None:
    """None for a value GE's reader skips too (unset, or a list without val_type)."""
    kind = a.WhichOneof("value")
    if kind is None:
        return None
    if kind == "s":
        return AttrValue("s", a.s.decode())
    if kind in ("i", "b"):
        return AttrValue(kind, getattr(a, kind))
    if kind == "f":
        return AttrValue("f", _float32(a.f))
    if kind == "t":
        return AttrValue("t", tensor_from_proto(a.t, what))
    if kind == "list":
        if a.list.val_type == pb.ListValue.VT_LIST_NONE:
            return None
        ours = _KIND_OF_VT.get(a.list.val_type)
        if ours is None:
            name = pb.ListValue.ListValueType.Name(a.list.val_type)
            raise ValueError(f"{what}: list attributes of type {name} are not supported")
        vals = getattr(a.list, _LIST_KINDS[ours][0])
        if ours == "list_s":
            return AttrValue(ours, tuple(v.decode() for v in vals))
        return AttrValue(ours, tuple(_float32(v) for v in vals) if ours == "list_f" else tuple(vals))
    raise ValueError(f"{what}: attributes of kind {kind!r} are not supported (only s, i, f, b, t and lists of s, i, "
                     "f, b)")


def _ports_by_index(attrs, key: str, count: int, what: str) -> list[str]:
    names = [s.decode() for s in attrs[key + "_key"].list.s] if key + "_key" in attrs else []
    index = list(attrs[key + "_value"].list.i) if key + "_value" in attrs else []
    if len(names) != len(index) or sorted(index) != list(range(len(index))):
        raise ValueError(f"{what}: {key}_key/{key}_value do not name ports 0..n-1")
    if names and len(names) != count:
        raise ValueError(f"{what}: {len(names)} port names for {count} ports")
    ordered = [""] * len(names)
    for n, i in zip(names, index):
        ordered[i] = n
    return ordered


def _parse_ref(ref: str, what: str) -> tuple[str, int]:
    name, sep, idx = ref.rpartition(":")
    if not sep or not name or not idx.lstrip("-").isdigit():
        raise ValueError(f"{what}: input {ref!r} is not 'node:index'")
    return name, int(idx)


def _topological(ops, what: str) -> list:
    """The OpDefs in an order where every node follows its sources; among ready nodes, the lowest id first (GE's
    ids are the nodes' topological positions), then file order."""
    by_name = {}
    for op in ops:
        if op.name in by_name:
            raise ValueError(f"{what}: two nodes named {op.name!r}")
        by_name[op.name] = op
    deps = {}
    for op in ops:
        srcs = set()
        for ref in op.input:
            if ref:
                src, _ = _parse_ref(ref, f"{what}, node {op.name!r}")
                if src not in by_name:
                    raise ValueError(f"{what}: node {op.name!r} reads {ref!r}, and there is no node {src!r}")
                srcs.add(src)
        deps[op.name] = srcs
    done, order, pending = set(), [], sorted(ops, key=lambda op: op.id)  # stable: file order among equal ids
    while pending:
        ready = [op for op in pending if deps[op.name] <= done]
        if not ready:
            raise ValueError(f"{what}: the nodes {sorted(op.name for op in pending)} form a cycle")
        order.append(ready[0])
        done.add(ready[0].name)
        pending.remove(ready[0])
    return order


def _node(op, what: str) -> tuple[NodeIR, list[tuple[str, int]]]:
    where = f"{what}, node {op.name!r}"
    attrs = op.attr
    refs = []
    for k, ref in enumerate(op.input):
        if not ref:
            continue
        src, idx = _parse_ref(ref, where)
        if idx < 0:
            raise ValueError(f"{where}: control edges ({ref!r}) are not supported")
        if k != len(refs):
            raise ValueError(f"{where}: input port {k} is connected but port {len(refs)} is not")
        refs.append((src, idx))
    node = NodeIR(name=op.name, type=op.type)
    node.input_descs = [desc_from_proto(d, f"{where} input desc {k}") for k, d in enumerate(op.input_desc)]
    node.output_descs = [desc_from_proto(d, f"{where} output desc {k}") for k, d in enumerate(op.output_desc)]
    node.input_names = _ports_by_index(attrs, "_input_name", max(len(op.input), len(op.input_desc)), where)
    node.output_names = _ports_by_index(attrs, "_output_name", len(op.output_desc), where)
    ir_order = [s.decode() for s in attrs["_ir_attr_names"].list.s] if "_ir_attr_names" in attrs else []
    names = [n for n in ir_order if n in attrs] + sorted(n for n in attrs if n not in ir_order)
    for name in names:
        if name in _META_ATTRS:
            continue
        value = attr_from_proto(attrs[name], f"{where}, attribute {name!r}")
        if value is not None:
            node.attrs[name] = value
    return node, refs


def from_model_def(model, what: str) -> GraphIR:
    """The GraphIR of a ModelDef's main graph (graph[0]); `what` names the source in errors."""
    if not model.graph:
        raise ValueError(f"{what}: the model has no graph")
    if len(model.graph) > 1:
        raise ValueError(f"{what}: the model has {len(model.graph)} graphs; subgraphs are not supported")
    gdef = model.graph[0]
    graph = GraphIR(name=gdef.name)
    for name in sorted(gdef.attr):
        value = attr_from_proto(gdef.attr[name], f"{what}, graph attribute {name!r}")
        if value is not None:
            graph.attrs[name] = value
    net_outputs = [op for op in gdef.op if op.type == NET_OUTPUT]
    if len(net_outputs) > 1:
        raise ValueError(f"{what}: {len(net_outputs)} NetOutput nodes")
    by_name: dict[str, NodeIR] = {}
    for op in _topological(list(gdef.op), what):
        if op.type == NET_OUTPUT:
            continue
        node, refs = _node(op, what)
        node.inputs = [(by_name[src], idx) for src, idx in refs]
        for src, idx in node.inputs:
            if idx >= len(src.output_descs):
                raise ValueError(f"{what}: node {node.name!r} reads output {idx} of {src.name!r}, which has "
                                 f"{len(src.output_descs)} outputs")
        by_name[node.name] = node
        graph.nodes.append(node)
    if net_outputs:
        refs = [_parse_ref(r, f"{what}, NetOutput") for r in net_outputs[0].input if r]
    else:
        refs = [_parse_ref(r, f"{what}, graph output") for r in gdef.output]
    for src, idx in refs:
        if src not in by_name or idx < 0 or idx >= len(by_name[src].output_descs):
            raise ValueError(f"{what}: graph output {src}:{idx} is not an output of a node")
    graph.outputs = [(by_name[src], idx) for src, idx in refs]
    return graph
