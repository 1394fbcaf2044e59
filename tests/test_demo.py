"""python -m actgrad.demo runs every operator in every dtype and agrees with PyTorch."""
import subprocess
import sys

from actgrad import demo


def test_demo_passes_and_reports_every_case(capsys):
    assert demo.main(["--batch", "8", "--features", "256"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines if line.split()[:1] and line.split()[0] in
            {"hardtanh", "hardsigmoid", "clamp", "elu", "selu", "softplus"}]
    assert len(rows) == len(demo.CASES) * len(demo.DTYPES)
    assert all("yes" in row for row in rows)
    assert lines[-1] == "All operators within the contract's tolerance."


def test_demo_reports_a_mismatch_with_exit_status_1(monkeypatch, capsys):
    broken = demo.Case("hardtanh", "hardtanh_grad", lambda z: z, lambda s, g: 2 * g,
                       demo.CASES[0].reference, exact=True)
    monkeypatch.setattr(demo, "CASES", (broken,))
    assert demo.main(["--batch", "2", "--features", "64"]) == 1
    assert "Outside tolerance: hardtanh/float32, hardtanh/float16, hardtanh/bfloat16" in capsys.readouterr().out


def test_demo_runs_as_a_module():
    result = subprocess.run([sys.executable, "-m", "actgrad.demo", "--batch", "4", "--features", "128"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("MLP layer 4x128; twin SoC ")
