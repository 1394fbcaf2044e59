"""python -m actgrad.npu_check and scripts/npu_smoke.py, run as a user runs them, without an NPU; the smoke test's cases
and checks run on the twin against the twin (device "cpu").

Here (no torch_npu, no CANN) the check reports both absent and fails, and the smoke test skips with status 77, neither
with a traceback. With the stand-in torch_npu of tests/npu_stub/site_packages, a CANN toolkit faked in tmp_path (its
version files only) and a package library faked where the bridge looks, the CANN, torch_npu, package and owner lines
report what they find; the device and the operator run need an NPU."""
import importlib.util
import math
import os
import pathlib
import subprocess
import sys

import pytest
import torch

from actgrad import npu, spec

ROOT = pathlib.Path(__file__).resolve().parent.parent
STUB_SITE = ROOT / "tests" / "npu_stub" / "site_packages"
CHECKS = ["CANN toolkit", "torch_npu", "actgrad CANN package", "package owner", "bridge actgrad._npu", "NPU device",
          "hardtanh_grad on the NPU"]
CLEARED = ("ASCEND_HOME_PATH", "ASCEND_CUSTOM_OPP_PATH", "ASCEND_OPP_PATH", "PYTHONPATH",
           "ACTGRAD_STUB_TORCH_NPU_VERSION")


def run(*args: str, torch_npu: bool = False, **env: str) -> subprocess.CompletedProcess:
    """`python *args` in a process that sees this tree's actgrad, the stand-in torch_npu or none, and of the NPU
    variables only `env`."""
    environment = {k: v for k, v in os.environ.items() if k not in CLEARED} | env
    # this tree's package (not another checkout's installed one), and the stand-in torch_npu if asked for
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), *([str(STUB_SITE)] if torch_npu else [])])
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=600)


def report(result: subprocess.CompletedProcess) -> dict[str, tuple[str, str]]:
    """{check name: (status, the rest of its line)}, asserting the checks come one line each, in order."""
    lines = result.stdout.splitlines()
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    rows = {}
    for line, name in zip(lines, CHECKS):
        status, _, rest = line.partition(" ")
        assert rest.lstrip().startswith(f"{name}: "), line
        rows[name] = (status, rest.lstrip()[len(name) + 2:])
    assert list(rows) == CHECKS and len(lines) == len(CHECKS) + 1, result.stdout
    return rows


def npu_check(**env: str) -> tuple[subprocess.CompletedProcess, dict[str, tuple[str, str]]]:
    result = run("-m", "actgrad.npu_check", **env)
    return result, report(result)


def test_here_it_says_torch_npu_and_cann_are_absent_and_fails():
    result, rows = npu_check()
    assert result.returncode == 1
    assert {name: status for name, (status, _) in rows.items()} == {
        "CANN toolkit": "MISSING", "torch_npu": "MISSING", "actgrad CANN package": "MISSING",
        "package owner": "SKIPPED", "bridge actgrad._npu": "MISSING", "NPU device": "SKIPPED",
        "hardtanh_grad on the NPU": "SKIPPED"}
    assert rows["CANN toolkit"][1].startswith("ASCEND_HOME_PATH is not set. Fix: install the CANN toolkit 8.3 or later")
    assert rows["torch_npu"][1].startswith("torch_npu is not installed. Fix: on this host with CANN: pip install "
                                           "torch-npu==2.13.0")
    assert "bash build.sh" in rows["actgrad CANN package"][1]
    assert "pip install -v --no-build-isolation -e ." in rows["bridge actgrad._npu"][1]
    assert result.stdout.splitlines()[-1].startswith("torch_npu and CANN are absent")


def test_help_describes_it():
    result = run("-m", "actgrad.npu_check", "--help")
    assert result.returncode == 0 and "One line per check" in result.stdout


def fake_cann(home: pathlib.Path, version_file: str | None, text: str = "") -> pathlib.Path:
    home.mkdir()
    if version_file is not None:
        (home / version_file).parent.mkdir(parents=True)
        (home / version_file).write_text(text)
    return home


@pytest.mark.parametrize("version_file,text,status,detail", [
    ("share/info/toolkit/version.info", "Version=8.2.0\n", "FAILED",
     "CANN 8.2.0 at {home} (share/info/toolkit/version.info) is too old: actgrad's package needs 8.3 or later. Fix: "),
    ("x86_64-linux/ascend_toolkit_install.info", "package_name=Ascend-cann-toolkit\nversion=8.3.RC1\n", "OK",
     "CANN 8.3.RC1 at {home} (x86_64-linux/ascend_toolkit_install.info)"),
    ("share/info/asc-devkit/version.info", "Version=9.0.0\n", "OK",
     "CANN 9.0.0 at {home} (share/info/asc-devkit/version.info)"),
    (None, "", "FAILED", "cannot tell the version of the CANN at {home}: no share/info/*/version.info"),
], ids=["8.2-too-old", "8.3-install-info", "9.0", "no-version"])
def test_the_cann_version_decides(tmp_path, version_file, text, status, detail):
    home = fake_cann(tmp_path / "cann", version_file, text)
    result = run("-m", "actgrad.npu_check", torch_npu=True, ASCEND_HOME_PATH=str(home))
    rows = report(result)
    assert rows["CANN toolkit"][0] == status
    assert rows["CANN toolkit"][1].startswith(detail.format(home=home))
    assert result.returncode == 1  # the stand-in torch_npu has no device


def test_with_the_stand_in_torch_npu_its_version_is_checked_and_the_device_is_missing(tmp_path):
    rows = report(run("-m", "actgrad.npu_check", torch_npu=True))
    assert rows["torch_npu"][0] == "OK" and rows["torch_npu"][1].startswith("torch_npu 2.13.0 with torch 2.13.0")
    assert rows["NPU device"][0] == "FAILED"
    assert rows["NPU device"][1].startswith("torch has no npu module: torch_npu registered no device")
    rows = report(run("-m", "actgrad.npu_check", torch_npu=True, ACTGRAD_STUB_TORCH_NPU_VERSION="2.12.0.post3"))
    assert rows["torch_npu"] == ("FAILED", "torch_npu 2.12.0.post3 is built for torch 2.12.0, this is torch "
                                 f"{__import__('torch').__version__}. Fix: on this host with CANN: pip install "
                                 "torch-npu==2.13.0 (never without CANN: there torch_npu makes `import torch` fail): "
                                 "its major.minor.patch must be torch's.")
    assert rows["NPU device"][0] == "SKIPPED"


def installed_package(vendors: pathlib.Path) -> pathlib.Path:
    """vendors/actgrad as the .run installs it, its library a stand-in naming the package's API."""
    library = vendors / "actgrad" / npu.CUSTOM_OPAPI
    library.parent.mkdir(parents=True)
    library.write_bytes(b"\x7fELF\0" + f"{npu.PACKAGE_API}GetWorkspaceSize\0{npu.PACKAGE_API}\0".encode())
    return vendors / "actgrad"


def test_the_package_on_ascend_custom_opp_path_is_found(tmp_path):
    package = installed_package(tmp_path / "vendors")
    rows = report(run("-m", "actgrad.npu_check", torch_npu=True, ASCEND_CUSTOM_OPP_PATH=f"{package}:"))
    assert rows["actgrad CANN package"] == ("OK", f"vendor directory {package}, via ASCEND_CUSTOM_OPP_PATH: "
                                            f"op_api/lib/libcust_opapi.so exports {npu.PACKAGE_API}")
    assert rows["package owner"][0] == "OK"
    assert rows["package owner"][1].startswith(f"{package / npu.CUSTOM_OPAPI} is owned by uid {os.getuid()}")


def test_the_package_loaded_by_config_ini_is_found(tmp_path):
    opp = tmp_path / "opp"
    package = installed_package(opp / "vendors")
    (opp / "vendors" / "config.ini").write_text("load_priority=customize,actgrad\n")
    rows = report(run("-m", "actgrad.npu_check", torch_npu=True, ASCEND_OPP_PATH=str(opp)))
    assert rows["actgrad CANN package"][0] == "OK"
    assert rows["actgrad CANN package"][1].startswith(
        f"vendor directory {package}, via $ASCEND_OPP_PATH/vendors/config.ini: ")


def test_a_package_not_where_the_bridge_looks_is_missing(tmp_path):
    opp = tmp_path / "opp"
    installed_package(opp / "vendors")
    (opp / "vendors" / "config.ini").write_text("load_priority=customize\n")
    rows = report(run("-m", "actgrad.npu_check", torch_npu=True, ASCEND_OPP_PATH=str(opp)))
    assert rows["actgrad CANN package"][0] == "MISSING"
    assert rows["actgrad CANN package"][1].startswith(
        f"no op_api/lib/libcust_opapi.so exporting {npu.PACKAGE_API} in a vendor directory on ASCEND_CUSTOM_OPP_PATH "
        f"(not set) or loaded by $ASCEND_OPP_PATH/vendors/config.ini (ASCEND_OPP_PATH {str(opp)!r}). Fix: if it is "
        f"installed, source <dir>/vendors/actgrad/bin/set_env.bash before Python starts; else build it with "
        f"`bash build.sh`")
    assert rows["package owner"] == ("SKIPPED", "no package library to check")


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give the package to another user")
def test_a_package_another_user_owns_fails_the_owner_check(tmp_path):
    package = installed_package(tmp_path / "vendors")
    os.chown(package / npu.CUSTOM_OPAPI, 4321, 4321)
    rows = report(run("-m", "actgrad.npu_check", torch_npu=True, ASCEND_CUSTOM_OPP_PATH=str(package)))
    assert rows["actgrad CANN package"][0] == "OK"
    assert rows["package owner"] == (
        "FAILED", f"{package / npu.CUSTOM_OPAPI}: it is owned by uid 4321, neither this user (uid 0) nor root, so "
        f"torch_npu and actgrad skip it; no other package library passes it. Fix: {npu.OWNER_FIX}.")


def test_importing_it_imports_no_torch_npu():
    code = "import sys, actgrad.npu_check; assert 'torch_npu' not in sys.modules, 'imported'"
    result = run("-c", code, torch_npu=True)
    assert result.returncode == 0, result.stderr


def test_the_smoke_test_skips_without_an_npu():
    result = run("scripts/npu_smoke.py")
    assert result.returncode == 77
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith("npu_smoke: skipped: no NPU: torch_npu is not installed")


def test_the_smoke_test_help_describes_it():
    result = run("scripts/npu_smoke.py", "--help")
    assert result.returncode == 0
    assert "On-device acceptance of actgrad" in result.stdout and "77 (skipped)" in result.stdout


def smoke_module():
    loader = importlib.util.spec_from_file_location("npu_smoke", ROOT / "scripts" / "npu_smoke.py")
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


ROW_OPS = [op.name for op in spec.ROW_REDUCTIONS]


def test_the_smoke_test_runs_every_operator_of_the_spec():
    smoke = smoke_module()
    cases = list(smoke.cases())
    assert [op.name for op in dict.fromkeys(op for op, *_ in cases)] == [op.name for op in spec.OPS]
    # a row reduction along its default axis, then the first and the last where they are other axes
    axes = {(op.name, shape): [] for op, dtype, shape, _ in cases if op.family == "row" and dtype == torch.float32}
    for op, dtype, shape, attrs in cases:
        if op.family == "row" and dtype == torch.float32:
            axes[op.name, shape].append(attrs)
    assert axes["soft_max_backward", (3, 5, 1027)] == [{}, {"axis": 0}, {"axis": -1}]
    assert axes["soft_max_backward", (37, 31)] == axes["log_softmax_backward", (37, 31)] == [{}, {"axis": 0}]
    assert axes["log_softmax_backward", (3, 5, 1027)] == [{}, {"axis": 0}]


@pytest.mark.parametrize("op", ROW_OPS)
def test_the_smoke_test_row_cases_pass_on_the_twin(op):
    """Every row case but the 2M-element ones, the twin against itself: its inputs, attributes and bound fit the
    operator, and equal results compare as 0 ulp apart."""
    smoke = smoke_module()
    for seed, (case_op, dtype, shape, attrs) in enumerate(smoke.cases()):
        if case_op.name == op and math.prod(shape) <= 1 << 18:
            passed, result = smoke.run_op(case_op, dtype, shape, attrs, seed, device="cpu")
            assert passed and result.startswith("max 0 ulp"), (dtype, shape, attrs, result)


@pytest.mark.parametrize("op", ROW_OPS)
def test_the_smoke_test_row_inputs_mask_a_class_and_poison_a_row(op):
    smoke = smoke_module()
    diff_dst, dst = smoke.make_inputs(spec.BY_NAME[op], {"axis": 0}, (31, 37), torch.float32, 3)
    assert diff_dst.isnan().sum() == 1 and diff_dst[-1, -1].isnan()  # column 36 along axis 0
    assert dst[0, 0] == (0 if op == "soft_max_backward" else -math.inf) and dst[1:].isfinite().all()
    got = getattr(__import__("actgrad"), op)(diff_dst, dst, 0)
    assert got[:, -1].isnan().all() and got[:, :-1].isfinite().all()


@pytest.mark.parametrize("op", ROW_OPS)
def test_the_smoke_test_row_check_fails_outside_twice_the_bound(op):
    smoke = smoke_module()
    row_op = spec.BY_NAME[op]
    for dtype in (torch.float32, torch.bfloat16):
        inputs = smoke.make_inputs(row_op, {}, (37, 31), dtype, 5)
        want = getattr(__import__("actgrad"), op)(*inputs)
        target, absolute = smoke.tolerance(row_op, inputs, {}, want)
        assert smoke.compare(want, want, target, absolute)[0]
        within = want.double() + absolute.reshape(want.shape)  # rounded to the dtype: within 1.5 times the bound
        assert smoke.compare(within.to(dtype), want, target, absolute)[0]
        k = 40  # a finite element
        outside = want.clone()
        outside.view(-1)[k] += 8 * absolute[k].item()
        passed, result = smoke.compare(outside, want, target, absolute)
        assert not passed and result.startswith("max "), result
        unpoisoned = want.clone()
        unpoisoned[-1] = 0
        assert smoke.compare(unpoisoned, want, target, absolute) == (False, "NaN mismatch at 31 elements")
