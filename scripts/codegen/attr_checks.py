"""op_host/attr_checks.inc: each operator's attribute checks (Attr.valid and OpSpec.rules) as a C++ function, and the
table lower_attrs.cpp looks them up in."""
from __future__ import annotations

import re

from .common import CPP_BANNER, cpp_string

PATH = "op_host/attr_checks.inc"


def _uses(rule, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", rule.holds) is not None or name in rule.shows


def _declarations(op) -> str:
    """The attributes the checks read or show, as locals named like them (float32 values, bools as bool). A str
    attribute is checked against its choices before (schema.py, torch_kernels.cpp, tiling_func.cpp) and by no rule."""
    used = [(i, a) for i, a in enumerate(op.attrs) if any(_uses(rule, a.name) for rule in op.checks)]
    assert all(a.type != "str" for _, a in used), f"{op.name}: a rule over a str attribute"
    return "".join(f"    const {'bool' if a.type == 'bool' else 'float'} {a.name} = "
                   f"{f'a.IsSet({i})' if a.type == 'bool' else f'a[{i}]'};\n" for i, a in used)


def _message(rule) -> str:
    """The "expected ..." text as a C++ string expression, with the float32 values of the attributes it shows."""
    if not rule.shows:
        return cpp_string(rule.expected)
    shown = ' + ", " + '.join(f'{cpp_string(name + " = ")} + Attrs::Shortest({name})' for name in rule.shows)
    return f'std::string({cpp_string(rule.expected + " (")}) + {shown} + " as float32)"'


def _function(op) -> str:
    index = {a.name: i for i, a in enumerate(op.attrs)}
    body = "".join(f"    if (!({rule.holds})) a.Reject({index[rule.attr]}, {cpp_string(rule.attr)}, {_message(rule)});\n"
                   for rule in op.checks)
    parameter = "const Attrs& a" if body else "const Attrs&"
    return f"void Check{op.known_as}({parameter}) {{\n{_declarations(op)}{body}}}\n"


def render(spec) -> str:
    # the elementwise family's: a row operator's one attribute, its axis, is checked against the rank by its tiling
    functions = "\n".join(_function(op) for op in spec.ELEMENTWISE_OPS)
    table = "".join(f"    {{\"{op.op_type}\", {len(op.attrs)}, Check{op.known_as}}},\n" for op in spec.ELEMENTWISE_OPS)
    return (CPP_BANNER + "// Included by op_host/lower_attrs.cpp, which defines Attrs, IsNumber and IsFinite.\n\n"
            + functions + "\nconst AttrChecks kAttrChecks[] = {\n" + table + "};\n")
