"""python -m actgrad.npu_check: what this host still lacks to run actgrad's operators on an Ascend NPU.

One line per check, in order, with its status (OK, MISSING, FAILED, or SKIPPED where an earlier check must pass
first) and the fix: the CANN toolkit and its version, torch_npu, actgrad's CANN package where the bridge looks for it,
torch_npu's owner check of that package, the bridge actgrad._npu, an NPU device, and one operator run on the NPU
against the CPU twin. Exits 0 only when every check passes. torch_npu is imported only where it is installed.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from . import npu

OK, MISSING, FAILED, SKIPPED = "OK", "MISSING", "FAILED", "SKIPPED"
CANN_MINIMUM = (8, 3)  # build.sh's CANN_MINIMUM: the ASC CMake modules the package's build uses
# Where a toolkit records its version, in build.sh's order: CANN 8.5 and later, then earlier releases
CANN_VERSION_FILES = ("share/info/asc-devkit/version.info", "share/info/compiler/version.info",
                      "share/info/toolkit/version.info", "share/info/runtime/version.info",
                      "*-linux/ascend_toolkit_install.info", "compiler/version.info")
CANN_FIX = (f"install the CANN toolkit {'.'.join(map(str, CANN_MINIMUM))} or later and `source <cann>/set_env.sh` "
            "(it sets ASCEND_HOME_PATH) before Python starts")
INSTALL_PACKAGE = ("build it with `bash build.sh` in the repository root, install it with "
                   "`build_out/custom_opp_<os>_<arch>.run --install-path=<dir>`, and source "
                   f"<dir>/vendors/{npu.VENDOR}/bin/set_env.bash before Python starts")
BUILD_BRIDGE = ("with torch_npu installed and CANN's set_env.sh sourced, run "
                "`pip install -v --no-build-isolation -e .` in the repository root (-v shows why the bridge does not "
                "build, if it does not)")
EPILOG = ("If `import torch` itself fails with \"Failed to load the backend extension: torch_npu\", torch_npu cannot "
          "load CANN: run this with TORCH_DEVICE_BACKEND_AUTOLOAD=0 to see why.")


@dataclass(frozen=True)
class Check:
    key: str  # cann, torch_npu, package, owner, bridge, device, run
    name: str
    status: str
    detail: str
    fix: str = ""

    @property
    def passed(self) -> bool:
        return self.status == OK

    def line(self) -> str:
        text = f"{self.status:<8} {self.name}: {self.detail}"
        return f"{text}. Fix: {self.fix}." if self.fix else text


def cann_version(home: Path) -> tuple[str, Path] | None:
    """(the version, the file it is read from) of the CANN toolkit at `home`, or None."""
    for pattern in CANN_VERSION_FILES:
        for file in sorted(home.glob(pattern)):
            match = re.search(r"^[Vv]ersion=(\S+)", file.read_text(errors="replace"), re.M)
            if match:
                return match.group(1), file
    return None


def check_cann() -> Check:
    name = "CANN toolkit"
    home = os.environ.get("ASCEND_HOME_PATH")
    if not home:
        return Check("cann", name, MISSING, "ASCEND_HOME_PATH is not set", CANN_FIX)
    if not Path(home).is_dir():
        return Check("cann", name, MISSING, f"ASCEND_HOME_PATH={home} is not a directory", CANN_FIX)
    found = cann_version(Path(home))
    if found is None:
        return Check("cann", name, FAILED, f"cannot tell the version of the CANN at {home}: no "
                     f"share/info/*/version.info or *-linux/ascend_toolkit_install.info with a version= line", CANN_FIX)
    version, file = found
    numbers = re.match(r"(\d+)\.(\d+)", version)
    where = f"CANN {version} at {home} ({file.relative_to(home)})"
    if numbers is None:
        return Check("cann", name, FAILED, f"{where}: not a version like 8.3", CANN_FIX)
    if (int(numbers[1]), int(numbers[2])) < CANN_MINIMUM:
        return Check("cann", name, FAILED, f"{where} is too old: actgrad's package needs "
                     f"{'.'.join(map(str, CANN_MINIMUM))} or later", CANN_FIX)
    return Check("cann", name, OK, where)


def _release(version: str) -> str:
    """major.minor.patch of a torch or torch_npu version (2.13.0+cpu, 2.13.0.post3 -> 2.13.0)."""
    match = re.match(r"\d+\.\d+\.\d+", version)
    return match.group(0) if match else version


def check_torch_npu() -> Check:
    name = "torch_npu"
    install = (f"on this host with CANN: pip install torch-npu=={_release(torch.__version__)} (never without CANN: "
               "there torch_npu makes `import torch` fail)")
    if not npu.torch_npu_available():
        return Check("torch_npu", name, MISSING, "torch_npu is not installed", install)
    try:
        import torch_npu
    except Exception as error:  # a torch_npu that cannot load CANN fails in many ways (ImportError, OSError, ...)
        return Check("torch_npu", name, FAILED, f"import torch_npu failed: {error!r}",
                     "source CANN's set_env.sh before Python starts, and pair torch_npu with a CANN it supports")
    version = getattr(torch_npu, "__version__", "unknown")
    if _release(version) != _release(torch.__version__):
        return Check("torch_npu", name, FAILED, f"torch_npu {version} is built for torch {_release(version)}, "
                     f"this is torch {torch.__version__}", f"{install}: its major.minor.patch must be torch's")
    return Check("torch_npu", name, OK, f"torch_npu {version} with torch {torch.__version__}")


def check_package(libraries: list[npu.PackageLibrary]) -> Check:
    name = "actgrad CANN package"
    if not libraries:
        custom = os.environ.get("ASCEND_CUSTOM_OPP_PATH")
        opp = os.environ.get("ASCEND_OPP_PATH")
        return Check("package", name, MISSING, f"no {npu.CUSTOM_OPAPI} exporting {npu.PACKAGE_API} in a vendor "
                     f"directory on ASCEND_CUSTOM_OPP_PATH ({'not set' if custom is None else repr(custom)}) or "
                     f"loaded by $ASCEND_OPP_PATH/vendors/config.ini (ASCEND_OPP_PATH "
                     f"{'not set' if opp is None else repr(opp)})",
                     f"if it is installed, source <dir>/vendors/{npu.VENDOR}/bin/set_env.bash before Python starts; "
                     f"else {INSTALL_PACKAGE}")
    first = libraries[0]
    others = f" ({len(libraries) - 1} more further down the search order)" if len(libraries) > 1 else ""
    return Check("package", name, OK,
                 f"vendor directory {first.path.parents[2]}, via {first.via}: {npu.CUSTOM_OPAPI} exports "
                 f"{npu.PACKAGE_API}{others}")


def check_owner(libraries: list[npu.PackageLibrary]) -> Check:
    name = "package owner"
    if not libraries:
        return Check("owner", name, SKIPPED, "no package library to check")
    first = libraries[0]
    if not first.owner_problem:
        whose = "this user" if first.owner_uid == os.getuid() else "root"
        return Check("owner", name, OK, f"{first.path} is owned by uid {first.owner_uid} ({whose}): torch_npu's "
                     f"owner check passes")
    usable = npu.package_library()
    instead = (f"; the bridge takes {usable.path} instead" if usable is not None
               else "; no other package library passes it")
    return Check("owner", name, FAILED, f"{first.path}: {first.owner_problem}{instead}", npu.OWNER_FIX)


def check_bridge() -> Check:
    name = "bridge actgrad._npu"
    if importlib.util.find_spec("actgrad._npu") is None:
        return Check("bridge", name, MISSING, "not built", BUILD_BRIDGE)
    bridge, problem = npu.load_bridge()
    if bridge is None:
        return Check("bridge", name, FAILED, problem, BUILD_BRIDGE)
    return Check("bridge", name, OK, f"{bridge.__file__} imports")


def check_device(torch_npu_ok: bool) -> Check:
    name = "NPU device"
    if not torch_npu_ok:
        return Check("device", name, SKIPPED, "needs torch_npu")
    if not hasattr(torch, "npu"):
        return Check("device", name, FAILED, "torch has no npu module: torch_npu registered no device",
                     "reinstall the torch_npu of this torch")
    if not torch.npu.is_available():
        return Check("device", name, MISSING, "torch.npu.is_available() is False: no NPU is visible",
                     "check the driver (`npu-smi info`), ASCEND_RT_VISIBLE_DEVICES, and that this user may open "
                     "/dev/davinci*")
    return Check("device", name, OK, f"{torch.npu.device_count()} device(s), npu:0 is "
                 f"{torch.npu.get_device_name(0)}")


def check_run(ready: bool) -> Check:
    name = "hardtanh_grad on the NPU"
    if not ready:
        return Check("run", name, SKIPPED, "needs every check above")
    import actgrad

    saved = torch.linspace(-2.0, 2.0, 8)
    grad = torch.arange(1.0, 9.0)
    want = actgrad.hardtanh_grad(saved, grad)
    try:
        got = actgrad.hardtanh_grad(saved.to("npu"), grad.to("npu"))
        torch.npu.synchronize()  # a launch failure surfaces here
        got = got.cpu()
    except Exception as error:  # whatever the NPU stack raises is the finding
        return Check("run", name, FAILED, f"{type(error).__name__}: {str(error).strip()}",
                     "the message names the failing step; ASCEND_LAUNCH_BLOCKING=1 reports a launch error at the call")
    if not torch.equal(got, want):
        return Check("run", name, FAILED, f"8 elements: the NPU gave {got.tolist()}, the CPU twin {want.tolist()}",
                     "run `python scripts/npu_smoke.py` and report its table")
    return Check("run", name, OK, "8 elements on npu:0 equal the CPU twin's")


def _guarded(key: str, name: str, check, *args) -> Check:
    """check(*args), or FAILED with the exception it raised: one check's failure must not hide the others."""
    try:
        return check(*args)
    except Exception as error:
        return Check(key, name, FAILED, f"the check raised {type(error).__name__}: {error}")


def run_checks() -> list[Check]:
    checks = [_guarded("cann", "CANN toolkit", check_cann), _guarded("torch_npu", "torch_npu", check_torch_npu)]
    libraries = npu.package_libraries()
    checks += [_guarded("package", "actgrad CANN package", check_package, libraries),
               _guarded("owner", "package owner", check_owner, libraries),
               _guarded("bridge", "bridge actgrad._npu", check_bridge)]
    checks.append(_guarded("device", "NPU device", check_device, checks[1].passed))
    checks.append(_guarded("run", "hardtanh_grad on the NPU", check_run, all(c.passed for c in checks)))
    return checks


def summary(checks: list[Check]) -> str:
    by_key = {c.key: c for c in checks}
    if all(c.passed for c in checks):
        return "All checks pass: actgrad's operators run on this NPU."
    if by_key["cann"].status == MISSING and by_key["torch_npu"].status == MISSING:
        return ("torch_npu and CANN are absent: this is not an Ascend NPU host as far as Python can see, and "
                "actgrad's operators run on the CPU twin only.")
    failed = sum(not c.passed for c in checks)
    return f"{failed} of {len(checks)} checks do not pass: fix them in order (later checks need the earlier ones)."


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m actgrad.npu_check", description=__doc__, epilog=EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    checks = run_checks()
    for check in checks:
        print(check.line())
    print(summary(checks))
    return 0 if all(c.passed for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
