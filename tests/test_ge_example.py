"""examples/graph: the twin's MLP-backward script runs and prints what it should; its CANN twin differs only in its
import lines."""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "graph" / "mlp_backward.py"
EXAMPLE_GE = ROOT / "examples" / "graph" / "mlp_backward_ge.py"


def without_imports(path: Path, package: str) -> list[str]:
    lines = path.read_text().splitlines()
    imports = [line for line in lines if line.startswith(f"from {package}.")]
    assert len(imports) == 6, path
    return [line for line in lines if not line.startswith(f"from {package}.")]


def test_the_cann_script_differs_only_in_its_imports():
    assert without_imports(EXAMPLE, "actgrad.ge") == without_imports(EXAMPLE_GE, "ge")
    assert [line.replace("from actgrad.ge.", "from ge.") for line in EXAMPLE.read_text().splitlines()] == \
        EXAMPLE_GE.read_text().splitlines()


def test_the_twin_example_runs(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "DUMP_GRAPH_PATH": str(tmp_path)}
    result = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, env=env, cwd=tmp_path,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    nodes = re.findall(r"^  (\S+): (\S+)$", out, re.M)
    assert nodes == [("dy", "Data"), ("z", "Data"), ("mask", "Data"), ("h", "Data"),
                     ("ActgradHardtanhGrad_0", "ActgradHardtanhGrad"), ("Mul_0", "Mul"), ("Const_0", "Const"),
                     ("Mul_1", "Mul"), ("ActgradGeluBackward_0", "ActgradGeluBackward")]
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert all(re.fullmatch(r"pid_\d+_deviceid_0", Path(w).parent.name) for w in written), written
    assert re.fullmatch(r"ge_onnx_\d{8}_graph_0_mlp_backward\.onnx", Path(written[0]).name), written
    assert re.fullmatch(r"ge_readable_\d{8}_graph_0_mlp_backward\.txt", Path(written[1]).name), written
    assert f"dumped to {tmp_path}: {', '.join(written)}" in out
    diff = float(re.search(r"^dh \[8, 64\]: max \|dh - torch autograd\| = (\S+)$", out, re.M).group(1))
    assert 0 <= diff < 1e-5  # actgrad's tanh-form GELU derivative against torch's, a few f32 ulp apart


def test_the_readme_graph_mode_snippet_runs_and_matches_eager():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("\n## Graph mode\n"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    scope = {}
    exec(compile(code, "README.md (Graph mode)", "exec"), scope)  # noqa: S102
    import torch
    import actgrad  # noqa: F401
    g = scope
    g3 = torch.ops.actgrad.hardtanh_grad(g["z_t"], g["dy_t"], -1.0, 1.0) * g["mask_t"] * (1 / (1 - 0.1))
    assert torch.equal(g["dh_t"], torch.ops.actgrad.gelu_backward(g["h_t"], g3, "tanh"))
