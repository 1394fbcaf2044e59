"""The kOnnx dump: a GraphIR as a valid ONNX ModelProto that onnx.checker accepts and Netron opens.

GE's own kOnnx dump is the ONNX protobuf in text form with every node typed "ge:<Type>", tensor names "node:index"
and (at the level Graph::DumpToFile uses) no attributes, which onnx.checker rejects. This one keeps GE's naming and
adds what a checker and a viewer need:
- a node per GE node, named as in GE: actgrad operators in domain "actgrad" (op_type = the registered OpType, e.g.
  ActgradHardtanhGrad), GE built-ins (Data, Add, Mul, Cast, ...) in domain "ge"; each with its attributes under
  their own names (float -> FLOAT, int -> INT, bool -> INT 0/1 as GE's ONNX dump, str -> STRING, lists -> FLOATS/
  INTS/STRINGS, tensor -> TENSOR) and GE's tensor-desc attributes input_desc_nums, input_desc_dtype:<k>,
  input_desc_shape:<k>, input_desc_layout:<k> (and output_desc_*) as GE's ONNX dump names them, plus
  _input_name_key/_output_name_key (the port names);
- Const nodes as standard ONNX Constant nodes (default domain) with the value tensor, their layout in doc_string;
- tensors named "node:index"; each Data node reads a graph input named as the Data node (its dtype and shape);
  graph outputs are the output tensors (an output listed twice goes through an Identity, ONNX names are single use);
  value_info gives every other tensor's element type and shape: an unknown rank has no shape, an unknown dim (-1)
  is a dim with neither value nor name. onnx.checker requires a shape on the main graph's inputs and outputs, so
  a Data node of unknown rank has no input (as in GE, where Data's input is unconnected) and an output of unknown
  rank is not listed as a graph output (its tensor is in value_info); metadata_props "graph_outputs" lists every
  graph output, in order, as "node:index", and "attr:<name>" each graph attribute in the readable dump's spelling;
- opset imports: "" 17 (Constant, Identity), "actgrad" 1, "ge" 1; IR version 8.
"""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from ... import spec
from . import _dtypes
from ._ge_model import UNKNOWN_RANK, tensor_bytes
from ._ir import AttrValue, GraphIR, NodeIR, TensorDescIR
from ._readable import attr_text

ACTGRAD_DOMAIN, GE_DOMAIN = "actgrad", "ge"
OPSET_IMPORTS = {"": 17, ACTGRAD_DOMAIN: 1, GE_DOMAIN: 1}
IR_VERSION = 8  # ONNX 1.12's, old enough for every current reader; opset 17 needs no newer


def tensor_name(node: NodeIR, index: int) -> str:
    return f"{node.name}:{index}"


def _elem_type(desc: TensorDescIR, what: str) -> int:
    dt = _dtypes.by_ge(desc.data_type, what)
    if dt.onnx is None:
        raise ValueError(f"{what}: data type {dt.name} has no ONNX element type")
    return dt.onnx


def value_info(name: str, desc: TensorDescIR, what: str) -> onnx.ValueInfoProto:
    info = onnx.ValueInfoProto(name=name)
    tt = info.type.tensor_type
    tt.elem_type = _elem_type(desc, what)
    if desc.shape is not None:
        tt.shape.SetInParent()
        for d in desc.shape:
            dim = tt.shape.dim.add()
            if d >= 0:
                dim.dim_value = d
    return info


def _tensor_proto(value, name: str, what: str) -> TensorProto:
    desc = TensorDescIR(value.data_type, tuple(value.data.shape), value.format)
    t = TensorProto(name=name, data_type=_elem_type(desc, what), dims=list(value.data.shape))
    t.raw_data = tensor_bytes(value, what)
    return t


def _attribute(name: str, value: AttrValue, what: str) -> onnx.AttributeProto:
    kind, v = value.kind, value.value
    if kind == "b":
        return helper.make_attribute(name, int(v))
    if kind == "list_b":
        return helper.make_attribute(name, [int(x) for x in v], attr_type=onnx.AttributeProto.INTS)
    if kind == "t":
        return helper.make_attribute(name, _tensor_proto(v, "", what))
    types = {"s": onnx.AttributeProto.STRING, "i": onnx.AttributeProto.INT, "f": onnx.AttributeProto.FLOAT,
             "list_s": onnx.AttributeProto.STRINGS, "list_i": onnx.AttributeProto.INTS,
             "list_f": onnx.AttributeProto.FLOATS}
    return helper.make_attribute(name, list(v) if kind.startswith("list_") else v, attr_type=types[kind])


def _desc_attributes(prefix: str, descs: list[TensorDescIR], what: str) -> list[onnx.AttributeProto]:
    out = [helper.make_attribute(f"{prefix}_desc_nums", len(descs))]
    for k, d in enumerate(descs):
        dims = [UNKNOWN_RANK] if d.shape is None else list(d.shape)
        out += [helper.make_attribute(f"{prefix}_desc_dtype:{k}", _dtypes.by_ge(d.data_type, what).serial),
                helper.make_attribute(f"{prefix}_desc_shape:{k}", dims, attr_type=onnx.AttributeProto.INTS),
                helper.make_attribute(f"{prefix}_desc_layout:{k}", _dtypes.format_name(d.format, what))]
    return out


def _node(node: NodeIR, inputs: list[str]) -> onnx.NodeProto:
    what = f"node {node.name!r}"
    outputs = [tensor_name(node, k) for k in range(len(node.output_descs))]
    if node.type == "Const":
        value = node.attrs["value"].value
        proto = helper.make_node("Constant", [], outputs, name=node.name,
                                 value=_tensor_proto(value, outputs[0], what))
        proto.doc_string = f"GE Const, layout {_dtypes.format_name(value.format, what)}"
        return proto
    domain = ACTGRAD_DOMAIN if node.type in spec.BY_TYPE else GE_DOMAIN
    proto = helper.make_node(node.type, inputs, outputs, name=node.name, domain=domain)
    attrs = [_attribute(n, v, f"{what} attribute {n!r}") for n, v in node.attrs.items()]
    attrs += _desc_attributes("input", node.input_descs, what) + _desc_attributes("output", node.output_descs, what)
    if node.input_names:
        attrs.append(helper.make_attribute("_input_name_key", list(node.input_names)))
    if node.output_names:
        attrs.append(helper.make_attribute("_output_name_key", list(node.output_names)))
    proto.attribute.extend(sorted(attrs, key=lambda a: a.name))  # sorted by name, as GE's ONNX dump
    return proto


def to_model(graph: GraphIR) -> onnx.ModelProto:
    g = onnx.GraphProto(name=graph.name)
    for node in graph.nodes:
        if node.type == "Data":
            desc = node.input_descs[0] if node.input_descs else node.output_descs[0]
            inputs = [node.name] if desc.shape is not None else []
            if inputs:
                g.input.append(value_info(node.name, desc, f"graph input {node.name!r}"))
        else:
            inputs = [tensor_name(src, idx) for src, idx in node.inputs]
        g.node.append(_node(node, inputs))
    used = set()
    for k, (src, idx) in enumerate(graph.outputs):
        name = tensor_name(src, idx)
        if src.output_descs[idx].shape is None:
            continue
        if name in used:
            alias = f"{name}/output_{k}"
            g.node.append(helper.make_node("Identity", [name], [alias], name=alias))
            name = alias
        used.add(name)
        g.output.append(value_info(name, src.output_descs[idx], f"graph output {k}"))
    for node in graph.nodes:
        for k, desc in enumerate(node.output_descs):
            if tensor_name(node, k) not in used:
                g.value_info.append(value_info(tensor_name(node, k), desc, f"node {node.name!r} output {k}"))
    model = helper.make_model(g, producer_name="actgrad",
                              opset_imports=[helper.make_opsetid(d, v) for d, v in OPSET_IMPORTS.items()])
    model.ir_version = IR_VERSION
    props = {"graph_outputs": ",".join(tensor_name(s, i) for s, i in graph.outputs)}
    props |= {f"attr:{name}": attr_text(value) for name, value in graph.attrs.items()}
    helper.set_model_props(model, props)
    return model
