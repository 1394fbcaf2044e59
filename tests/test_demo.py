"""python -m actgrad.demo runs every operator in every dtype and agrees with PyTorch."""
import dataclasses
import subprocess
import sys

import torch

from actgrad import demo

DTYPE_NAMES = {"float32", "float16", "bfloat16"}


def rows_by_call(lines: list[str]) -> dict[str, list[list[str]]]:
    """{the call line printed for a case: its dtype rows, split}"""
    rows, call = {}, None
    for line in lines:
        if line.startswith("actgrad."):
            call = line.split("   vs ")[0]
            rows[call] = []
        elif call is not None and line.split()[:1] and line.split()[0] in DTYPE_NAMES:
            rows[call].append(line.split())
    return rows


def test_demo_passes_and_reports_every_case_under_the_function_users_call(capsys):
    assert demo.main(["--batch", "8", "--features", "256"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = rows_by_call(lines)
    assert list(rows) == [case.call for case in demo.CASES]
    assert all(call.startswith(f"actgrad.{case.op}(") for call, case in zip(rows, demo.CASES))
    assert all(len(dtype_rows) == len(demo.DTYPES) and all("yes" in r for r in dtype_rows)
               for dtype_rows in rows.values())
    assert lines[-1] == "All operators within the contract's tolerance."


def test_demo_runs_every_operator_of_the_spec():
    from actgrad import spec
    assert {case.op for case in demo.CASES} == {op.name for op in spec.OPS}


def test_demo_holds_the_ulp_budget_outside_the_cancellation_regions_only():
    # GELU's erf form around its derivative's zero (x ~ -0.75): the absolute bound applies there, not at x = 1
    case = next(c for c in demo.CASES if c.call == "actgrad.gelu_backward(z, g)")
    saved = torch.tensor([-0.7518, 1.0, -5.0])
    grad = torch.ones(3)
    exact = case.reference(saved.double(), grad.double())
    off = exact.float() + torch.tensor([2e-7, 2e-7, 2e-7])  # within 1e-6*|g| everywhere, but ~27 ulp at x = 1
    assert demo.absolute_bound_holds(case, saved, grad, off, exact).tolist() == [True, False, True]


def test_demo_explains_its_columns_and_what_its_timings_are(capsys):
    demo.main(["--batch", "2", "--features", "64"])
    out = capsys.readouterr().out
    for column in ("dtype", "reference", "max abs err", "max ulp", "twin ms", "torch ms", "blocks/tile"):
        assert f"\n  {column} " in out, column
    assert "not an NPU timing" in out


def test_demo_reports_a_mismatch_with_exit_status_1(monkeypatch, capsys):
    broken = demo.Case("actgrad.hardtanh_grad(z, g)", "hardtanh_backward(g, z, -1, 1)", "hardtanh_grad",
                       lambda z: z, lambda s, g: 2 * g, demo.CASES[0].reference, exact=True)
    monkeypatch.setattr(demo, "CASES", (broken,))
    assert demo.main(["--batch", "2", "--features", "64"]) == 1
    assert ("Outside tolerance: actgrad.hardtanh_grad(z, g) [float32], actgrad.hardtanh_grad(z, g) [float16], "
            "actgrad.hardtanh_grad(z, g) [bfloat16]") in capsys.readouterr().out


def test_demo_holds_the_row_reductions_to_their_f32_bound(monkeypatch, capsys):
    """A row sum off by 2**-8 relative is outside the bound of the f32 row sum (actgrad.row_bounds)."""
    right = next(c for c in demo.CASES if c.op == "soft_max_backward")
    wrong = dataclasses.replace(right, run=lambda s, g: s * (g - 1.00390625 * (g * s).sum(-1, keepdim=True)))
    monkeypatch.setattr(demo, "CASES", (right, wrong))
    assert demo.main(["--batch", "4", "--features", "256"]) == 1
    assert f"Outside tolerance: {right.call} [float32], {right.call} [float16], {right.call} [bfloat16]" in (
        capsys.readouterr().out)


def test_demo_runs_as_a_module_and_has_help():
    result = subprocess.run([sys.executable, "-m", "actgrad.demo", "--batch", "4", "--features", "128"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Every actgrad operator on the activations z of an MLP layer (4x128)")
    help_text = subprocess.run([sys.executable, "-m", "actgrad.demo", "--help"], capture_output=True, text=True)
    assert help_text.returncode == 0
    for option in ("--batch", "--features", "--seed"):
        assert option in help_text.stdout
    assert "rows of the layer's activations" in help_text.stdout
    bad = subprocess.run([sys.executable, "-m", "actgrad.demo", "--batch", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--batch must be at least 1" in bad.stderr
