"""Spelling shared by the renderers: the generated-file banner and C++ literals."""
from __future__ import annotations

import math

BANNER = "Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script."
CPP_BANNER = f"// {BANNER}\n"

# spec dtype name -> GE data type enumerator
GE_DTYPES = {"float32": "DT_FLOAT", "float16": "DT_FLOAT16", "bfloat16": "DT_BF16"}


def cpp_float(value: float) -> str:
    """A C++ literal that reads back as exactly `value` (repr is the shortest round-trip form)."""
    if math.isinf(value):
        return ("-" if value < 0 else "") + "std::numeric_limits<float>::infinity()"
    return repr(float(value))


def cpp_bool(value: bool) -> str:
    return "true" if value else "false"


def cpp_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cpp_attr_default(attr) -> str:
    """The attribute's default as the IR spells it (a str attribute's IR value)."""
    if attr.type == "str":
        return cpp_string(attr.ir_value(attr.default))
    if attr.type == "int":
        return str(int(attr.default))
    return cpp_bool(attr.default) if attr.type == "bool" else cpp_float(attr.default)


def ge_dtypes(op) -> list[str]:
    return [GE_DTYPES[d] for d in op.dtypes]
