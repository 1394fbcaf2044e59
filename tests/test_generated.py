"""The files generated from spec.py are up to date, and say what they are derived from."""
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GEN_OPS = ROOT / "scripts" / "gen_ops.py"


def _load_spec():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_ops
        return gen_ops.load_spec()
    finally:
        sys.path.pop(0)


GENERATED = ["README.md", "framework/actgrad_ops_proto.h", "op_host/actgrad_op_def.cpp", "op_host/op_registry.inc",
             "op_host/row_op_registry.inc", "op_host/attr_checks.inc", "op_host/torch_npu/aclnn_calls.inc",
             *(f"op_kernel/{op.kernel_name}.cpp" for op in _load_spec().OPS), "docs/operators.md",
             "python/actgrad/ge/es/actgrad.py"]


def gen_ops(*args):
    return subprocess.run([sys.executable, str(GEN_OPS), *args], capture_output=True, text=True)


def test_generated_files_are_up_to_date():
    result = gen_ops("--check")
    assert result.returncode == 0, f"stale generated files:\n{result.stdout}{result.stderr}"


def test_check_lists_stale_files_and_a_rerun_fixes_them(tmp_path):
    for path in GENERATED:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, tmp_path / path)
    kernel = tmp_path / "op_kernel" / "actgrad_hardtanh_grad.cpp"
    kernel.write_text(kernel.read_text() + "// edited by hand\n")
    (tmp_path / "op_host" / "op_registry.inc").unlink()

    result = gen_ops("--check", "--root", str(tmp_path))
    assert result.returncode == 1
    assert result.stdout.splitlines() == ["stale: op_host/op_registry.inc", "stale: op_kernel/actgrad_hardtanh_grad.cpp"]

    assert gen_ops("--root", str(tmp_path)).returncode == 0
    assert gen_ops("--check", "--root", str(tmp_path)).returncode == 0
    assert kernel.read_text() == (ROOT / "op_kernel" / "actgrad_hardtanh_grad.cpp").read_text()


def test_readme_outside_the_markers_is_kept(tmp_path):
    section = (ROOT / "README.md").read_text()
    begin, end = section.index("<!-- BEGIN GENERATED OPERATORS -->"), section.index("<!-- END GENERATED OPERATORS -->")
    readme = "# actgrad\n\nIntro.\n\n<!-- BEGIN GENERATED OPERATORS -->\nold\n<!-- END GENERATED OPERATORS -->\n\nTail.\n"
    (tmp_path / "README.md").write_text(readme)
    assert gen_ops("--root", str(tmp_path)).returncode == 0
    text = (tmp_path / "README.md").read_text()
    assert text.startswith("# actgrad\n\nIntro.\n\n") and text.endswith("\n\nTail.\n")
    assert section[begin:end] in text


def test_generated_sources_name_their_origin():
    for path in GENERATED[1:]:
        first_line = (ROOT / path).read_text().splitlines()[0]
        assert "Generated from python/actgrad/spec.py by scripts/gen_ops.py" in first_line, path


CPP_CONSTANTS = {"true": True, "false": False, "std::numeric_limits<float>::infinity()": math.inf}


def _cpp_value(literal: str, attr):
    if attr.type == "str":
        return attr.choices[[f'"{attr.ir_value(c)}"' for c in attr.choices].index(literal)]
    if attr.type == "int":
        return int(literal)
    return CPP_CONSTANTS[literal] if literal in CPP_CONSTANTS else float(literal)


def test_ge_prototypes_match_the_spec():
    proto = (ROOT / "framework" / "actgrad_ops_proto.h").read_text()
    for op in _load_spec().OPS:
        block = re.search(rf"REG_OP\({op.op_type}\)\n(.*?)\.OP_END_FACTORY_REG\({op.op_type}\)", proto, re.S).group(1)
        assert re.findall(r"\.INPUT\((\w+),", block) == list(op.inputs)
        assert re.findall(r"\.OUTPUT\((\w+),", block) == [op.output]
        attrs = re.findall(r"\.(REQUIRED_ATTR|ATTR)\((\w+), (\w+)(?:, (.*))?\)", block)
        assert [name for _, name, _, _ in attrs] == [a.ir for a in op.attrs]
        for (kind, _, ge_type, literal), attr in zip(attrs, op.attrs):
            assert ge_type == {"float": "Float", "bool": "Bool", "str": "String", "int": "Int"}[attr.type]
            assert (kind == "REQUIRED_ATTR") == attr.required
            if not attr.required:
                assert _cpp_value(literal, attr) == attr.default, (op.op_type, attr.name, literal)


def test_kernel_entries_take_ir_order_and_pass_their_familys_order():
    """Every entry takes the IR order; the elementwise kernel gets (saved, grad), the row kernel (grad, saved)."""
    for op in _load_spec().OPS:
        text = (ROOT / "op_kernel" / f"{op.kernel_name}.cpp").read_text()
        params = ", ".join(f"GM_ADDR {n}" for n in (*op.inputs, op.output, "workspace", "tiling"))
        assert f'extern "C" __global__ __aicore__ void {op.kernel_name}({params})' in text
        if op.family == "row":
            assert f"RunRowGrad<actgrad::{op.functor}>({op.grad}, {op.saved}, {op.output}, tiling);" in text
        else:
            assert f"RunElementwiseGrad<actgrad::{op.functor}>({op.saved}, {op.grad}, {op.output}, tiling);" in text


def test_a_str_attribute_is_generated_in_the_irs_spelling():
    """A str attribute (GELU's approximate, whose IR attribute is oneDNN's mode) in every generated file, rendered
    from a one-operator spec: the torch name and values in Python, the IR's name and values in REG_OP, the OpDef, the
    TilingFunc's table (whose index the lowering takes) and the aclnn call."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from codegen import attr_checks, ge_proto, kernels, op_def, readme
    finally:
        sys.path.pop(0)
    real = _load_spec()
    mode = real.Attr("approximate", "str", "none", "the approximation", choices=("none", "tanh"), ir_name="mode",
                     ir_choices=("gelu_erf", "gelu_tanh"))
    op = real.OpSpec(known_as="GeluBackward", inputs=("src", "diff_dst"), saved="src", output="diff_src",
                     attrs=(mode,), functor="GeluGrad", forward_tensor="forward input", formula="f", origin="o",
                     cann_builtin="-", divergences="d")
    spec = type("Spec", (), {"OPS": (op,), "ELEMENTWISE_OPS": (op,), "ROW_REDUCTIONS": (),
                             "snake": staticmethod(real.snake)})
    assert '.ATTR(mode, String, "gelu_erf")' in ge_proto.render(spec)
    opdef = op_def.render(spec)
    assert 'this->Attr("mode").AttrType(OPTIONAL).String("gelu_erf");' in opdef
    assert 'kGeluBackwardModeChoices[] = {"gelu_erf", "gelu_tanh", nullptr};' in opdef
    assert '{"mode", actgrad::npu::AttrKind::kString, kGeluBackwardModeChoices},' in opdef
    assert ('in0, in1, const_cast<char*>(attrs[0] == 0.0 ? "gelu_erf" : "gelu_tanh"), out)'
            in kernels.render_aclnn_calls(spec))
    assert "void CheckGeluBackward(const Attrs&) {" in attr_checks.render(spec)
    assert """one of 'none' (IR `mode` = "gelu_erf"), 'tanh' (IR `mode` = "gelu_tanh")""" in readme.render_operators_doc(spec)

    from actgrad import schema  # noqa: PLC0415
    assert schema.functional_schema(op) == "gelu_backward(Tensor src, Tensor diff_dst, str approximate='none') -> Tensor"
    assert schema.attribute_values(op, []) == [0.0]
    assert schema.attribute_values(op, ["tanh"]) == [1.0]
    assert schema.kernel_spec(op)[4] == [("approximate", "str", False, ["none", "tanh"])]
    with pytest.raises(ValueError, match=r"^ActgradGeluBackward: attribute 'approximate' = 'erf' is invalid: expected "
                                         r"one of 'none', 'tanh'$"):
        schema.attribute_values(op, ["erf"])
