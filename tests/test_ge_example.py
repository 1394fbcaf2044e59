"""examples/graph: the MLP-backward script runs on the twin and prints what it should; its --cann imports name the
same things from CANN's ge package."""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "graph" / "mlp_backward.py"


def imports(package: str) -> list[str]:
    """The script's import lines from `package`, with the package name cut off."""
    lines = [line.strip() for line in EXAMPLE.read_text().splitlines()]
    found = [line[len(f"from {package}."):] for line in lines if line.startswith(f"from {package}.")]
    assert len(found) == 6, package
    return found


def test_the_cann_imports_name_what_the_twin_imports_name():
    assert imports("ge") == imports("actgrad.ge")


def run_example(tmp_path, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "DUMP_GRAPH_PATH": str(tmp_path)}
    return subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)


def test_the_example_rejects_an_unknown_argument_and_needs_cann_for_cann(tmp_path):
    result = run_example(tmp_path, "--twin")
    assert result.returncode == 2 and "unrecognized arguments: --twin" in result.stderr, result.stderr
    if importlib.util.find_spec("ge") is None:  # no CANN here: its ge package is missing, said by name
        result = run_example(tmp_path, "--cann")
        assert result.returncode == 1 and "No module named 'ge'" in result.stderr, result.stderr
    assert not any(tmp_path.iterdir())


def test_the_twin_example_runs(tmp_path):
    result = run_example(tmp_path)
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
