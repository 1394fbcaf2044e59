"""The C++ graph example (examples/graph/mlp_backward.cpp) compiles against the real public GE/metadef headers:
scripts/check_graph_example.sh over the fidelity tool's CANN header farm ($FID_ROOT/cann, built by its setup.sh from
hicann/ge, hicann/metadef, ...), with CANN's built-in prototypes from tests/ge_protos_standin (Data, Const) and an
ops-math source tree (the real Mul prototype; $ACTGRAD_OPS_MATH, default $FID_ROOT/opsmath). Skipped where those trees
are absent. Building, linking and running it needs CANN and an NPU: not done here."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check_graph_example.sh"
EXAMPLE = ROOT / "examples" / "graph" / "mlp_backward.cpp"
FID_ROOT = Path(os.environ.get("FID_ROOT", Path.home() / ".cache" / "actgrad-fidelity"))
CANN_FARM = FID_ROOT / "cann"
OPS_MATH = Path(os.environ.get("ACTGRAD_OPS_MATH", FID_ROOT / "opsmath"))

pytestmark = pytest.mark.skipif(
    shutil.which("g++") is None or not (CANN_FARM / "include" / "graph" / "operator_reg.h").is_file()
    or not (OPS_MATH / "math" / "mul" / "op_graph" / "mul_proto.h").is_file(),
    reason="needs g++, the fidelity tool's CANN header farm and an ops-math source tree")


def check(*source):
    args = ["bash", str(SCRIPT), *(("--file", str(source[0])) if source else ()), str(CANN_FARM),
            str(ROOT / "tests" / "ge_protos_standin"), str(OPS_MATH)]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def test_the_example_compiles_against_the_ge_headers():
    result = check()
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("errors: 0")


@pytest.mark.parametrize("wrong, right, message", [
    (".set_input_result(z)", ".set_input_results(z)", "has no member named 'set_input_results'"),
    ('.set_attr_mode("gelu_tanh")', ".set_attr_mode(1.5f)", "no matching function for call to"),
    ("ge::op::Mul(\"dropout_mask\")", "ge::op::Multiply(\"dropout_mask\")", "'Multiply' is not a member of 'ge::op'"),
    ("session.AddGraph(graphId, BuildGraph())", "session.AddGraph(BuildGraph())", "no matching function for call to"),
])
def test_a_wrong_name_or_signature_is_an_error(tmp_path, wrong, right, message):
    source = EXAMPLE.read_text()
    assert wrong in source
    broken = tmp_path / "broken.cpp"
    broken.write_text(source.replace(wrong, right))
    result = check(broken)
    assert result.returncode == 1
    assert message in result.stdout.replace("\u2018", "'").replace("\u2019", "'")
