"""python/actgrad/ge/es/actgrad.py: the ES functions of the operators, one per OpType, with the signature CANN's
gen_esb gives the Python API of a prototype (es_generator/py_generator.h): inputs positional in IR order, typed
TensorHolder or TensorLike (an operator of two inputs takes numbers and lists too); a `*`, then the attributes by
their IR names, required ones first, then the optional ones with their IR defaults; a single output returned as a
TensorHolder. gen_esb names a Python keyword among them in_/attr_<name>; no actgrad name is one."""
from __future__ import annotations

import keyword
import math
import textwrap

from .common import BANNER

PATH = "python/actgrad/ge/es/actgrad.py"
PY_TYPES = {"float": "float", "bool": "bool", "str": "str", "int": "int"}
TYPE_DOCS = {"float": "float value", "bool": "boolean value", "str": "string", "int": "integer value"}


def _default(attr) -> str:
    if attr.type == "str":
        return repr(attr.ir_value(attr.default))
    if attr.type == "bool":
        return repr(bool(attr.default))
    if attr.type == "int":
        return repr(int(attr.default))
    value = float(attr.default)
    return ("-" if value < 0 else "") + "math.inf" if math.isinf(value) else repr(value)


def _wrap(text: str, first: str, rest: str) -> str:
    return textwrap.fill(text, width=116, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)


def _ordered_attrs(op) -> list:
    return [a for a in op.attrs if a.required] + [a for a in op.attrs if not a.required]


def _function(op) -> str:
    assert not any(keyword.iskeyword(n) for n in (*op.inputs, *(a.ir for a in op.attrs))), op.op_type
    params = [f"{name}: Union[TensorHolder, TensorLike]" for name in op.inputs]
    attrs = _ordered_attrs(op)
    if attrs:
        params.append("*")
        params += [f"{a.ir}: {PY_TYPES[a.type]}" + ("" if a.required else f" = {_default(a)}") for a in attrs]
    docs = [f"        {name}: TensorHolder or TensorLike object" for name in op.inputs]
    for a in attrs:
        values = (" One of " + ", ".join(repr(a.ir_value(c)) for c in a.choices) + ".") if a.choices else ""
        docs.append(_wrap(f"{a.ir}: {TYPE_DOCS[a.type]}{'' if a.required else ' (optional)'}: {a.doc}.{values}",
                          "        ", "            "))
    call = f"    return build({op.op_type!r}, ({', '.join(op.inputs)}), {{{', '.join(f'{a.ir!r}: {a.ir}' for a in op.attrs)}}})"
    if len(call) > 120:
        call = "\n".join([f"    return build({op.op_type!r}, ({', '.join(op.inputs)}), {{",
                          *(f"        {a.ir!r}: {a.ir}," for a in op.attrs), "    })"])
    head = f"def {op.op_type}({', '.join(params)}) -> TensorHolder:"
    if len(head) > 120:
        head = "\n".join([f"def {op.op_type}(", *(f"    {p}," for p in params), ") -> TensorHolder:"])
    return "\n".join([
        head,
        _wrap(f'"""{op.op_type}: {op.formula}.', "    ", "    "),
        "",
        f"    Adds an {op.op_type} node; a Session runs it as the actgrad kernel on the twin",
        f"    (torch.ops.actgrad.{op.name}).",
        "",
        "    Args:",
        *docs,
        "    Returns:",
        f"        TensorHolder: {op.output}",
        "    Note: at least one of the following input arguments should be TensorHolder object:",
        *(f"          {name}" for name in op.inputs),
        '    """',
        call,
    ])


def render(spec) -> str:
    needs_math = any(a.type == "float" and a.default is not None and math.isinf(a.default)
                     for op in spec.OPS for a in op.attrs)
    names = "".join(f"\n    {op.op_type!r}," for op in spec.OPS) + "\n"
    return "\n".join([
        f"# {BANNER}",
        '"""actgrad.ge.es.actgrad: the ES functions of the actgrad operators (GE: ge.es.actgrad, the plugin gen_esb',
        'generates from framework/actgrad_ops_proto.h with module name "actgrad")."""',
        "from __future__ import annotations",
        "",
        *(["import math"] if needs_math else []),
        "from typing import Union",
        "",
        "from ._actgrad_node import build",
        "from .tensor_holder import TensorHolder",
        "from .tensor_like import TensorLike",
        "",
        f"__all__ = [{names}]",
        *("\n\n" + _function(op) for op in spec.OPS),
        "",
    ])
