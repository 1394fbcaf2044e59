"""The operator table of README.md (between the BEGIN/END markers) and docs/operators.md, one section per operator."""
from __future__ import annotations

from .common import BANNER

PATH = "README.md"
OPERATORS_DOC_PATH = "docs/operators.md"
BEGIN = "<!-- BEGIN GENERATED OPERATORS -->"
END = "<!-- END GENERATED OPERATORS -->"
NEW_README = "## Operators\n\n{section}\n"


def _default(attr) -> str:
    return repr(attr.default)  # as Python prints it: -1.0, 0.16666666666666666, True, inf


def python_signature(op) -> str:
    """The public function's signature, as inspect.signature(actgrad.<op>) prints it."""
    params = list(op.inputs)
    params += [a.name if a.required else f"{a.name}={_default(a)}" for a in op.attrs]
    return f"({', '.join(params)}, *, out=None)"


def _attrs_cell(op) -> str:
    return ", ".join(f"`{a.name}` ({'required' if a.required else _default(a)})" for a in op.attrs)


def _table(spec) -> str:
    rows = ["| Python function | registered OpType | inputs (IR order) | attrs (default) | output | "
            "CANN built-in counterpart |",
            "|---|---|---|---|---|---|"]
    for op in spec.OPS:
        inputs = ", ".join(f"`{n}`" for n in op.inputs)
        rows.append(f"| [`actgrad.{op.name}`]({OPERATORS_DOC_PATH}#{op.name}) | `{op.op_type}` | {inputs} "
                    f"| {_attrs_cell(op)} | `{op.output}` | {op.cann_builtin} |")
    return "\n".join(rows) + "\n"


def _validity(op, attr) -> str:
    """The checks that name the attribute (each failing one a ValueError naming it), as their "expected" texts."""
    expected = [rule.expected for rule in op.checks if rule.attr == attr.name]
    return f"; expected: {'; '.join(expected)}" if expected else ""


def _choices(attr) -> str:
    """A str attribute's values, with the IR's spelling where it has its own."""
    if attr.type != "str":
        return ""
    values = ", ".join(repr(c) + (f" (IR `{attr.ir}` = \"{attr.ir_value(c)}\")" if attr.ir_value(c) != c else "")
                       for c in attr.choices)
    return f"; one of {values}"


def _section(op) -> str:
    attrs = "".join(f"  - `{a.name}` ({a.type}, {'required' if a.required else 'default ' + _default(a)}): {a.doc}"
                    f"{_choices(a)}{_validity(op, a)}\n" for a in op.attrs)
    return (
        f"## {op.name}\n\n"
        f"```python\nactgrad.{op.name}{python_signature(op)} -> Tensor\n```\n\n"
        f"- Formula: `{op.formula}`\n"
        f"- Forward tensor: `{op.saved}` is the {op.forward_tensor}; `{op.grad}` is the incoming gradient.\n"
        + (f"- Attributes:\n{attrs}" if attrs else "- Attributes: none\n")
        + f"- Dtypes: {', '.join(op.dtypes)} (one dtype for all tensors; float16/bfloat16 computed in float32).\n"
        + ("- Kernel family: a row reduction along `axis`, the tensor viewed as [outer, R, inner] around it "
           "([row_reductions.md](row_reductions.md): tiling, summation order, accuracy); the result is contiguous.\n"
           if op.family == "row" else "")
        + f"- torch op: `torch.ops.actgrad.{op.name}` and `.out`; GE IR: "
        f"`{op.op_type}({', '.join(op.inputs)}) -> {op.output}`; kernel `op_kernel/{op.kernel_name}.cpp`.\n"
        f"- Origin: {op.origin}. CANN built-in counterpart: {op.cann_builtin}; this package's aclnn API: "
        f"`{op.aclnn_api}`.\n"
        f"- Divergences: {op.divergences}\n"
    )


def render_section(spec) -> str:
    return f"{BEGIN}\n<!-- {BANNER} -->\n\n{_table(spec)}{END}"


def render_operators_doc(spec) -> str:
    """docs/operators.md: every operator's signature, formula, attributes and their checks, names and divergences."""
    intro = ("The value contract every operator follows (NaN and infinity, rounding, accuracy) is in "
             "[semantics.md](semantics.md); a divergence below is where an operator departs from PyTorch, oneDNN or "
             "CANN.\n\n")
    return (f"<!-- {BANNER} -->\n# actgrad operators\n\n{intro}"
            + "\n".join(_section(op) for op in spec.OPS))


def render(spec, current: str | None) -> str:
    """README.md with the generated section replaced (or a new README holding just that section)."""
    section = render_section(spec)
    if current is None:
        return NEW_README.format(section=section)
    start, end = current.find(BEGIN), current.find(END)
    if start < 0 or end < start:
        raise ValueError(f"README.md lacks the {BEGIN} ... {END} markers; add them where the operator list belongs")
    return current[:start] + section + current[end + len(END):]
