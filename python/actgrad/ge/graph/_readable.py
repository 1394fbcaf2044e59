"""GE's readable graph text (DumpFormat.kReadable), laid out as GE's ReadableDump (graph_metadef/graph/utils/
readable_dump.cc, default_attr_utils.h, tensor_value_utils.cc) writes it:

    graph("g"):
      %x : [#users=1] = Node[type=Data] (attrs = {index: 0})
      %Mul_1 : [#users=1] = Node[type=Mul] (inputs = (x1=%x, x2=%Const_0))

      return (%Mul_1)

`[#users=N]` on a node line is its number of outputs (GE prints the count of output anchors); a node with more than
one output is followed by one `get_element` line per output, named ret, ret_1, ... with that output's consumer count.
Attributes are the IR ones (here: every attribute whose name does not start with "_"), in IR order; an empty string
or an empty list is left out. Floats print as C's "%f", tensors as their values with the middle elided after six
(a bf16 tensor as <not_supported>, as GE).
"""
from __future__ import annotations

import struct

from ._ir import AttrValue, ConstTensor, GraphIR, NodeIR

_SHOW = 6  # kAttrTensorShowNum
_PRINTABLE = {0: "f", 1: "f", 11: "f", 2: "d", 3: "d", 4: "d", 6: "d", 7: "d", 8: "d", 9: "d", 10: "d", 12: "b"}


def _f32(x: float) -> str:
    v = struct.unpack("<f", struct.pack("<f", x))[0]
    return "%f" % v


def _tensor(t: ConstTensor) -> str:
    if t.data.numel() == 0:
        return "<empty>"
    style = _PRINTABLE.get(t.data_type)
    if style is None:
        return "<not_supported>"
    vals = t.data.detach().cpu().reshape(-1).tolist()
    if style == "f":
        text = ["%f" % v for v in vals]  # fp16/fp32 values are exact in a double, as GE's float conversion
    elif style == "b":
        text = ["true" if v else "false" for v in vals]
    else:
        text = [str(int(v)) for v in vals]
    if len(text) > _SHOW:
        text = text[:_SHOW // 2] + ["..."] + text[-(_SHOW // 2):]
    return "[" + " ".join(text) + "]"


def _scalar(kind: str, v) -> str:
    if kind in ("s", "list_s"):
        return f'"{v}"' if v else ""
    if kind in ("f", "list_f"):
        return _f32(v)
    if kind in ("b", "list_b"):
        return "true" if v else "false"
    return str(v)


def attr_text(value: AttrValue) -> str:
    """"" when GE leaves the attribute out."""
    if value.kind == "t":
        return _tensor(value.value)
    if value.kind.startswith("list_"):
        items = [s for s in (_scalar(value.kind, v) for v in value.value) if s]
        return "{" + ", ".join(items) + "}" if items else ""
    return _scalar(value.kind, value.value)


def _output_names(graph: GraphIR) -> dict[str, list[str]]:
    """What each node's outputs are called: the node's name for a single output, else ret, ret_1, ..."""
    names, counter = {}, 0
    for node in graph.nodes:
        if len(node.output_descs) <= 1:
            names[node.name] = [node.name]
            continue
        names[node.name] = []
        for _ in node.output_descs:
            names[node.name].append("ret" if counter == 0 else f"ret_{counter}")
            counter += 1
    return names


def render(graph: GraphIR) -> str:
    outs = _output_names(graph)
    users: dict[tuple[str, int], int] = {}
    for node in graph.nodes:
        for src, idx in node.inputs:
            users[(src.name, idx)] = users.get((src.name, idx), 0) + 1
    for src, idx in graph.outputs:  # GE's NetOutput node is a consumer too
        users[(src.name, idx)] = users.get((src.name, idx), 0) + 1

    lines = [f'graph("{graph.name}"):']
    for node in graph.nodes:
        lines.append(_node_line(node, outs))
        if len(node.output_descs) > 1:
            for k, name in enumerate(outs[node.name]):
                lines.append(f"  %{name} : [#users={users.get((node.name, k), 0)}] = "
                             f"get_element[node=%{node.name}]({k})")
    if graph.outputs:
        refs = [outs[src.name][idx] for src, idx in graph.outputs]
        body = f"%{refs[0]}" if len(refs) == 1 else ", ".join(f"output_{k}=%{r}" for k, r in enumerate(refs))
        lines += ["", f"  return ({body})"]
    return "\n".join(lines) + "\n"


def _node_line(node: NodeIR, outs: dict[str, list[str]]) -> str:
    # GE names a port without IR information _input_<k>
    port = [node.input_names[k] if k < len(node.input_names) else f"_input_{k}" for k in range(len(node.inputs))]
    inputs = ", ".join(f"{port[k]}=%{outs[src.name][idx]}" for k, (src, idx) in enumerate(node.inputs))
    attrs = [(n, attr_text(v)) for n, v in node.attrs.items() if not n.startswith("_")]
    attrs_text = ", ".join(f"{n}: {t}" for n, t in attrs if t)
    parts = ([f"inputs = ({inputs})"] if node.inputs else []) + ([f"attrs = {{{attrs_text}}}"] if attrs_text else [])
    return f"  %{node.name} : [#users={len(node.output_descs)}] = Node[type={node.type}] ({', '.join(parts)})"
