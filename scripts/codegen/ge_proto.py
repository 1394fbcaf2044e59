"""framework/actgrad_ops_proto.h: the GE IR prototypes (REG_OP) graph mode compiles against."""
from __future__ import annotations

from .common import CPP_BANNER, cpp_attr_default, ge_dtypes

PATH = "framework/actgrad_ops_proto.h"
GE_ATTR_TYPES = {"float": "Float", "bool": "Bool", "str": "String", "int": "Int"}


def _reg_op(op) -> str:
    types = "TensorType({" + ", ".join(ge_dtypes(op)) + "})"
    lines = [f"REG_OP({op.op_type})"]
    lines += [f"    .INPUT({name}, {types})" for name in op.inputs]
    lines.append(f"    .OUTPUT({op.output}, {types})")
    for attr in op.attrs:
        ge_type = GE_ATTR_TYPES[attr.type]
        if attr.required:
            lines.append(f"    .REQUIRED_ATTR({attr.ir}, {ge_type})")
        else:
            lines.append(f"    .ATTR({attr.ir}, {ge_type}, {cpp_attr_default(attr)})")
    lines.append(f"    .OP_END_FACTORY_REG({op.op_type})")
    return f"// {op.formula}\n" + "\n".join(lines) + "\n"


def render(spec) -> str:
    body = "\n".join(_reg_op(op) for op in spec.OPS)
    return (
        CPP_BANNER
        + "#ifndef ACTGRAD_OPS_PROTO_H_\n#define ACTGRAD_OPS_PROTO_H_\n\n"
        + "#include <limits>\n\n#include \"graph/operator_reg.h\"\n\n"
        + "namespace ge {\n\n" + body + "\n}  // namespace ge\n\n#endif  // ACTGRAD_OPS_PROTO_H_\n"
    )
