"""The scripts: bench_ops.py runs and reports every operator against its ATen counterpart (on a small size: its timings
are for people reading them, not for tests)."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import bench_ops  # noqa: E402
import reference as R  # noqa: E402


def test_median_times_runs_every_pair_in_every_round():
    calls = []
    pairs = [(lambda k=k: calls.append(("a", k)), lambda k=k: calls.append(("b", k))) for k in range(3)]
    medians = bench_ops.median_times(pairs, reps=2, warmup=1)
    assert len(medians) == 3 and all(ta >= 0 and tb >= 0 for ta, tb in medians)
    one_round = [(side, k) for k in range(3) for side in ("a", "b")]
    assert calls == one_round * 3  # one warm-up round, then two timed rounds, interleaved


@pytest.mark.parametrize("dtypes", ["float32", "bfloat16"])
def test_bench_ops_reports_every_operator(dtypes):
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_ops.py"), "--numel", "4099", "--reps", "1",
                             "--warmup", "0", "--dtypes", dtypes, "--row-shapes", "7x5,3x1x4"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    geo = next(i for i, line in enumerate(lines) if line.startswith("geometric mean ratio "))
    rows = [line.split() for line in lines[2:geo]]
    names = [row[0] for row in rows]
    # every elementwise operator of the spec has a row (a form in parentheses after its name), in the spec's order
    assert list(dict.fromkeys(name.split("(")[0] for name in names)) == [op.name for op in R.SPEC.ELEMENTWISE_OPS]
    # a ratio for every row (with one run of 4099 elements a hiccup on one side can print 0.00)
    assert all(row[1] == dtypes and float(row[-1]) >= 0 for row in rows)
    # then the row reductions: each operator on each shape along the last axis and axis 0
    assert lines[geo + 2].startswith("row reduction [shape,axis]")
    row_rows = [line.split() for line in lines[geo + 3:-1]]
    want = [f"{op.name}[{shape},{axis}]" for shape, last in (("7x5", 1), ("3x1x4", 2)) for axis in (last, 0)
            for op in R.SPEC.ROW_REDUCTIONS]
    assert [row[0] for row in row_rows] == want
    assert all(row[1] == dtypes and float(row[-1]) >= 0 for row in row_rows)
    assert lines[-1].startswith("row reductions: max ratio ")


def test_bench_ops_rejects_an_unknown_dtype_naming_the_argument():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_ops.py"), "--dtypes", "float32,bf16"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "--dtypes: unknown dtype bf16: expected names from float32, bfloat16, float16" in result.stderr


@pytest.mark.parametrize("script", ["bench_ops.py", "bench_twin.py", "accuracy.py", "gen_ops.py",
                                    "check_kernel_sources.py", "gen_cann_builtin_names.py"])
def test_every_option_of_the_scripts_is_explained_by_help(script):
    """--help prints usage (and runs nothing), with a description for every option."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / script), "--help"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split("options:\n", 1)[1].splitlines()
    for i, line in enumerate(lines):
        if line.startswith("  -"):
            described = len(line.strip().split("  ")) > 1 or (i + 1 < len(lines) and lines[i + 1].startswith(" " * 8))
            assert described, f"{script}: option without help: {line.strip()}"


def test_install_script_help_prints_usage_and_installs_nothing():
    result = subprocess.run(["bash", str(ROOT / "scripts" / "install.sh"), "--help"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("Usage: bash scripts/install.sh")
    assert "[install" not in result.stdout  # no step ran
    bad = subprocess.run(["bash", str(ROOT / "scripts" / "install.sh"), "--bogus"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "unknown argument '--bogus'" in bad.stderr


def test_accuracy_rejects_an_unknown_operator_listing_the_row_reductions_too():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "accuracy.py"), "--ops", "softmax_backward"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "--ops: unknown operator(s) softmax_backward; expected some of " in result.stderr
    assert "soft_max_backward" in result.stderr and "log_softmax_backward" in result.stderr
