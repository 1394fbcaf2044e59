"""GE's graph schema, ge_ir.proto (hicann/ge graph_metadef/proto/ge_ir.proto, package ge.proto), built in code.

No protoc here, so the descriptors are declared field by field with the proto's exact message names, field names,
numbers and types. Only what an actgrad graph and its readers need is declared: the attribute-group messages
(AttrGroups and the rest) are left out, so their fields (OpDef 11, GraphDef 12, ModelDef 12, TensorDescriptor 6)
read as unknown fields and are kept as bytes. Every AttrDef value case is declared, so a reader can tell a kind it
does not support from an absent value.

Messages: ModelDef, GraphDef, OpDef, AttrDef (with ListValue, ListListInt, ListListFloat), NamedAttrs,
TensorDescriptor, TensorDef, ShapeDef; enum DataType.
"""
from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from ._dtypes import DTYPES

_F = descriptor_pb2.FieldDescriptorProto
_TYPES = {
    "string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES, "int64": _F.TYPE_INT64, "uint32": _F.TYPE_UINT32,
    "uint64": _F.TYPE_UINT64, "int32": _F.TYPE_INT32, "float": _F.TYPE_FLOAT, "bool": _F.TYPE_BOOL,
}
_PKG = ".ge.proto."


def _field(msg, name, number, type_, repeated=False, oneof=None):
    f = msg.field.add(name=name, number=number, label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL)
    if type_ in _TYPES:
        f.type = _TYPES[type_]
    elif type_.startswith("enum:"):
        f.type, f.type_name = _F.TYPE_ENUM, _PKG + type_[5:]
    else:
        f.type, f.type_name = _F.TYPE_MESSAGE, _PKG + type_
    if oneof is not None:
        f.oneof_index = oneof


def _attr_map(msg, name, number, owner):
    """`map<string, AttrDef> name = number;` as proto3 spells it: a repeated nested *Entry message."""
    entry = msg.nested_type.add(name="".join(p.capitalize() for p in name.split("_")) + "Entry")
    entry.options.map_entry = True
    _field(entry, "key", 1, "string")
    _field(entry, "value", 2, "AttrDef")
    _field(msg, name, number, f"{owner}.{entry.name}", repeated=True)


def _file() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(name="ge_ir.proto", package="ge.proto", syntax="proto3")
    dt = fd.enum_type.add(name="DataType")
    for d in sorted(DTYPES, key=lambda d: d.proto):
        dt.value.add(name=d.name, number=d.proto)

    attr = fd.message_type.add(name="AttrDef")
    lv = attr.nested_type.add(name="ListValue")
    vt = lv.enum_type.add(name="ListValueType")
    for i, n in enumerate(("NONE", "STRING", "INT", "FLOAT", "BOOL", "BYTES", "TENSOR_DESC", "TENSOR", "GRAPH",
                           "NAMED_ATTRS", "DATA_TYPE")):
        vt.value.add(name=f"VT_LIST_{n}", number=i)
    for name, num, typ in (("s", 2, "bytes"), ("i", 3, "int64"), ("f", 4, "float"), ("b", 5, "bool"),
                           ("bt", 7, "bytes"), ("td", 8, "TensorDescriptor"), ("t", 9, "TensorDef"),
                           ("g", 10, "GraphDef"), ("na", 11, "NamedAttrs"), ("dt", 12, "int64")):
        _field(lv, name, num, typ, repeated=True)
    _field(lv, "val_type", 20, "enum:AttrDef.ListValue.ListValueType")
    lli = attr.nested_type.add(name="ListListInt")
    _field(lli.nested_type.add(name="ListInt"), "list_i", 1, "int64", repeated=True)
    _field(lli, "list_list_i", 1, "AttrDef.ListListInt.ListInt", repeated=True)
    llf = attr.nested_type.add(name="ListListFloat")
    _field(llf.nested_type.add(name="ListFloat"), "list_f", 1, "float", repeated=True)
    _field(llf, "list_list_f", 1, "AttrDef.ListListFloat.ListFloat", repeated=True)
    attr.oneof_decl.add(name="value")
    for name, num, typ in (("s", 2, "bytes"), ("i", 3, "int64"), ("f", 4, "float"), ("b", 5, "bool"),
                           ("bt", 7, "bytes"), ("list", 1, "AttrDef.ListValue"), ("func", 10, "NamedAttrs"),
                           ("td", 11, "TensorDescriptor"), ("t", 12, "TensorDef"), ("g", 13, "GraphDef"),
                           ("list_list_int", 14, "AttrDef.ListListInt"), ("dt", 15, "int64"),
                           ("list_list_float", 16, "AttrDef.ListListFloat"), ("expression", 17, "bytes")):
        _field(attr, name, num, typ, oneof=0)

    na = fd.message_type.add(name="NamedAttrs")
    _field(na, "name", 1, "string")
    _attr_map(na, "attr", 2, "NamedAttrs")

    _field(fd.message_type.add(name="ShapeDef"), "dim", 1, "int64", repeated=True)

    td = fd.message_type.add(name="TensorDescriptor")
    for name, num, typ in (("name", 1, "string"), ("dtype", 2, "enum:DataType"), ("shape", 3, "ShapeDef"),
                           ("layout", 4, "string"), ("has_out_attr", 9, "bool"), ("size", 10, "int64"),
                           ("weight_size", 11, "int64"), ("reuse_input", 12, "bool"), ("output_tensor", 13, "bool"),
                           ("device_type", 14, "string"), ("input_tensor", 15, "bool"), ("real_dim_cnt", 16, "int64"),
                           ("reuse_input_index", 17, "int64"), ("data_offset", 18, "int64"),
                           ("cmps_size", 19, "int64"), ("cmps_tab", 20, "string"), ("cmps_tab_offset", 21, "int64")):
        _field(td, name, num, typ)
    _attr_map(td, "attr", 5, "TensorDescriptor")

    tdef = fd.message_type.add(name="TensorDef")
    _field(tdef, "desc", 1, "TensorDescriptor")
    _field(tdef, "data", 2, "bytes")

    op = fd.message_type.add(name="OpDef")
    _field(op, "name", 1, "string")
    _field(op, "type", 2, "string")
    _field(op, "input", 5, "string", repeated=True)
    _attr_map(op, "attr", 10, "OpDef")
    for name, num, typ, rep in (("has_out_attr", 20, "bool", False), ("id", 21, "int64", False),
                                ("stream_id", 22, "int64", False), ("input_name", 23, "string", True),
                                ("src_name", 24, "string", True), ("src_index", 25, "int64", True),
                                ("dst_name", 26, "string", True), ("dst_index", 27, "int64", True),
                                ("input_i", 28, "int64", True), ("output_i", 29, "int64", True),
                                ("workspace", 30, "int64", True), ("workspace_bytes", 31, "int64", True),
                                ("is_input_const", 32, "bool", True), ("input_desc", 33, "TensorDescriptor", True),
                                ("output_desc", 34, "TensorDescriptor", True), ("subgraph_name", 35, "string", True)):
        _field(op, name, num, typ, repeated=rep)

    g = fd.message_type.add(name="GraphDef")
    _field(g, "name", 1, "string")
    _field(g, "input", 4, "string", repeated=True)
    _field(g, "output", 5, "string", repeated=True)
    _field(g, "op", 6, "OpDef", repeated=True)
    _attr_map(g, "attr", 11, "GraphDef")

    m = fd.message_type.add(name="ModelDef")
    _field(m, "name", 1, "string")
    _field(m, "version", 2, "uint32")
    _field(m, "custom_version", 3, "string")
    _field(m, "graph", 7, "GraphDef", repeated=True)
    _attr_map(m, "attr", 11, "ModelDef")
    return fd


# A private pool: the real ge_ir_pb2 (torchair, CANN) may be imported into the default pool in the same process.
_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file())


def _cls(name):
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName("ge.proto." + name))


ModelDef = _cls("ModelDef")
GraphDef = _cls("GraphDef")
OpDef = _cls("OpDef")
AttrDef = _cls("AttrDef")
TensorDescriptor = _cls("TensorDescriptor")
TensorDef = _cls("TensorDef")
ShapeDef = _cls("ShapeDef")
ListValue = AttrDef.ListValue
