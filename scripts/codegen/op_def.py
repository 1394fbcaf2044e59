"""op_host/actgrad_op_def.cpp: the CANN OpDef of every operator, wired to the hand-written hooks in op_host/npu/."""
from __future__ import annotations

from .common import CPP_BANNER, cpp_attr_default, cpp_string, ge_dtypes

PATH = "op_host/actgrad_op_def.cpp"
SOCS = ("ascend910b", "ascend910_93")
ATTR_KINDS = {"float": "actgrad::npu::AttrKind::kFloat", "bool": "actgrad::npu::AttrKind::kBool",
              "str": "actgrad::npu::AttrKind::kString"}
OPDEF_ATTR_SETTERS = {"float": "Float", "bool": "Bool", "str": "String", "int": "Int"}


def _attr_desc(op, attr) -> str:
    choices = f"k{op.known_as}{attr.ir[0].upper()}{attr.ir[1:]}Choices" if attr.type == "str" else "nullptr"
    return f"{{\"{attr.ir}\", {ATTR_KINDS[attr.type]}, {choices}}}"


def _tiling_trampoline(op) -> str:
    if op.family == "row":  # its one attribute is the Int axis, which the row TilingFunc reads itself
        return (f"static ge::graphStatus {op.op_type}TilingFunc(gert::TilingContext* context)\n{{\n"
                f"    return actgrad::npu::RowGradTilingFunc(context, \"{op.op_type}\");\n}}\n")
    # One TilingFunc per OpType: it tells the shared TilingFunc the op's name and its attributes' types (and a str
    # attribute's IR values, whose index the lowering takes), which gert::RuntimeAttrs cannot report.
    choices = "".join(
        f"    static const char* const k{op.known_as}{a.ir[0].upper()}{a.ir[1:]}Choices[] = "
        f"{{{', '.join(cpp_string(a.ir_value(c)) for c in a.choices)}, nullptr}};\n"
        for a in op.attrs if a.type == "str")
    descs = "".join(f"\n        {_attr_desc(op, a)}," for a in op.attrs)
    table = (f"    static const actgrad::npu::AttrDesc kAttrs[] = {{{descs}\n    }};\n"
             f"    return actgrad::npu::ElementwiseGradTilingFunc(context, \"{op.op_type}\", kAttrs,\n"
             "                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));\n"
             if op.attrs else
             f"    return actgrad::npu::ElementwiseGradTilingFunc(context, \"{op.op_type}\", nullptr, 0);\n")
    return f"static ge::graphStatus {op.op_type}TilingFunc(gert::TilingContext* context)\n{{\n{choices}{table}}}\n"


def _tensor(kind: str, name: str, op) -> str:
    dtypes = ", ".join(f"ge::{d}" for d in ge_dtypes(op))
    formats = ", ".join("ge::FORMAT_ND" for _ in op.dtypes)
    return (f"        this->{kind}(\"{name}\")\n"
            "            .ParamType(REQUIRED)\n"
            f"            .DataType({{{dtypes}}})\n"
            f"            .Format({{{formats}}});\n")


def _attr(attr) -> str:
    setter = OPDEF_ATTR_SETTERS[attr.type]
    if attr.required:
        return f"        this->Attr(\"{attr.ir}\").AttrType(REQUIRED).{setter}();\n"
    return f"        this->Attr(\"{attr.ir}\").AttrType(OPTIONAL).{setter}({cpp_attr_default(attr)});\n"


def _op_class(op) -> str:
    configs = "".join(f"\n            .AddConfig(\"{soc}\")" for soc in SOCS)
    return (
        f"// {op.formula}\n"
        f"class {op.op_type} : public OpDef {{\n"
        "public:\n"
        f"    explicit {op.op_type}(const char* name) : OpDef(name)\n"
        "    {\n"
        + "".join(_tensor("Input", name, op) for name in op.inputs)
        + _tensor("Output", op.output, op)
        + "".join(_attr(a) for a in op.attrs)
        + "        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)\n"
        "            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);\n"
        f"        this->AICore()\n            .SetTiling(optiling::{op.op_type}TilingFunc){configs};\n"
        "    }\n"
        "};\n"
        f"OP_ADD({op.op_type});\n"
    )


def render(spec) -> str:
    return (
        CPP_BANNER
        + "// Compiled only by the CANN package build (build.sh, op_host/CMakeLists.txt), never by setup.py.\n"
        + "#include <limits>\n\n#include \"register/op_def_registry.h\"\n\n#include \"npu/op_hooks.h\"\n\n"
        + "namespace optiling {\n\n" + "\n".join(_tiling_trampoline(op) for op in spec.OPS)
        + "\n}  // namespace optiling\n\n"
        + "namespace ops {\n\n" + "\n".join(_op_class(op) for op in spec.OPS) + "\n}  // namespace ops\n"
    )
