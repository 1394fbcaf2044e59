"""PrivateUse1 ("npu") kernels, registered only when torch_npu is installed (it is never imported otherwise).

They are the C++ kernels of the CPU twin (op_host/torch_kernels.cpp: same checks, same out= handling) with the
launch of the CANN package's aclnn<OpType> APIs, registered by the bridge module actgrad._npu (op_host/torch_npu/),
which setup.py builds where torch_npu and CANN are installed. Without the bridge, or without the installed package
where the bridge looks for it, calling an op on an NPU tensor raises a RuntimeError that says what is missing and how
to build or install it. `python -m actgrad.npu_check` checks the whole chain, one line per step.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from .schema import NAMESPACE, kernel_spec
from .spec import OPS

BUILD_STEPS = ("On a host with CANN 8.3 or later (`source <cann>/set_env.sh` sets ASCEND_HOME_PATH) and torch_npu: "
               "build the CANN package with `bash build.sh` in the repository root, install it with "
               "`build_out/custom_opp_<os>_<arch>.run --install-path=<dir>`, source "
               "<dir>/vendors/actgrad/bin/set_env.bash before Python starts, and build the bridge with "
               "`pip install --no-build-isolation -e .` there (or install a wheel built there).")
BUILD_HINT = "actgrad's NPU kernels are not built. " + BUILD_STEPS

# CMakePresets.json's vendor_name: the package's .run installs into <dir>/vendors/actgrad, whose bin/set_env.bash
# puts that directory on ASCEND_CUSTOM_OPP_PATH.
VENDOR = "actgrad"
# op_host/CMakeLists.txt's cust_opapi library: the aclnn<OpType> APIs the bridge resolves (op_host/torch_npu/)
CUSTOM_OPAPI = Path("op_api", "lib", "libcust_opapi.so")
# Every aclnn API of this package is its own (spec.OP_TYPE_PREFIX): a vendor library naming the first in its dynamic
# symbols is actgrad's, whatever its directory is called.
PACKAGE_API = OPS[0].aclnn_api
# How a vendor directory is found, in the order the bridge (as torch_npu) searches them
VIA_CUSTOM_OPP_PATH = "ASCEND_CUSTOM_OPP_PATH"
VIA_CONFIG_INI = "$ASCEND_OPP_PATH/vendors/config.ini"
OWNER_FIX = "chown the package's files to this user, or install the package as this user"


def torch_npu_available() -> bool:
    return importlib.util.find_spec("torch_npu") is not None


def _raising(message: str):
    """The PrivateUse1 kernel of every operator when the bridge cannot serve."""
    def kernel(*args, **kwargs):
        raise RuntimeError(message)
    return kernel


def _unusable(reason: str) -> str:
    return f"actgrad's NPU bridge actgrad._npu is built but unusable: {reason}. {BUILD_STEPS}"


def _custom_opp_dirs() -> list[Path]:
    """The vendor directories on ASCEND_CUSTOM_OPP_PATH, ':'-separated as torch_npu splits it."""
    return [Path(entry) for entry in os.environ.get("ASCEND_CUSTOM_OPP_PATH", "").split(":") if entry]


def _default_vendor_dirs() -> list[Path]:
    """The vendor directories that $ASCEND_OPP_PATH/vendors/config.ini loads (a .run installed without
    --install-path goes there)."""
    opp = os.environ.get("ASCEND_OPP_PATH")
    if not opp:
        return []
    vendors = Path(opp) / "vendors"
    try:
        lines = (vendors / "config.ini").read_text().splitlines()
    except OSError:
        return []
    priority = next((line.partition("=")[2] for line in lines if line.startswith("load_priority=")), "")
    return [vendors / name.strip() for name in priority.split(",") if name.strip()]


def _exports_package_api(library: Path) -> bool:
    """Whether the library names PACKAGE_API (its dynamic string table holds every exported name, NUL-ended)."""
    try:
        return f"{PACKAGE_API}GetWorkspaceSize\0".encode() in library.read_bytes()
    except OSError:
        return False


def owner_check_passes(file_uid: int, user_uid: int) -> bool:
    """torch_npu's rule for a custom aclnn library (op-plugin's checkOwner), which the bridge follows: one the user
    owns, or root's; root itself uses only its own."""
    return file_uid in (user_uid, 0)


@dataclass(frozen=True)
class PackageLibrary:
    """A CUSTOM_OPAPI exporting PACKAGE_API, found in a vendor directory via VIA_CUSTOM_OPP_PATH or VIA_CONFIG_INI."""
    path: Path
    via: str
    owner_uid: int

    @property
    def owner_problem(self) -> str:
        """Why the owner check skips it, or ''."""
        if owner_check_passes(self.owner_uid, os.getuid()):
            return ""
        return (f"it is owned by uid {self.owner_uid}, neither this user (uid {os.getuid()}) nor root, so torch_npu "
                f"and actgrad skip it")


def package_libraries() -> list[PackageLibrary]:
    """Every library exporting PACKAGE_API where the bridge looks for it, in its search order
    (op_host/torch_npu/aclnn_call.cpp): each ASCEND_CUSTOM_OPP_PATH entry, then each vendor config.ini loads."""
    found = []
    for directory, via in ([(d, VIA_CUSTOM_OPP_PATH) for d in _custom_opp_dirs()]
                           + [(d, VIA_CONFIG_INI) for d in _default_vendor_dirs()]):
        library = directory / CUSTOM_OPAPI
        if _exports_package_api(library):
            found.append(PackageLibrary(library, via, library.stat().st_uid))
    return found


def package_library() -> PackageLibrary | None:
    """The library the bridge takes the package's aclnn APIs from: the first that passes the owner check (never CANN's
    own libopapi, which torch_npu falls back to for its APIs)."""
    return next((library for library in package_libraries() if not library.owner_problem), None)


def package_visible() -> bool:
    """Whether the bridge will find the package's aclnn APIs."""
    return package_library() is not None


def _package_not_visible() -> str:
    custom = os.environ.get("ASCEND_CUSTOM_OPP_PATH")
    skipped = "".join(f" {library.path} exports them, but {library.owner_problem}: {OWNER_FIX}."
                      for library in package_libraries() if library.owner_problem)
    return (f"actgrad's NPU bridge actgrad._npu is built, but it cannot find actgrad's CANN operator package (its "
            f"aclnn APIs): no {CUSTOM_OPAPI} exporting {PACKAGE_API} is in a vendor directory on "
            f"ASCEND_CUSTOM_OPP_PATH ({'not set' if custom is None else repr(custom)}) or loaded by "
            f"{VIA_CONFIG_INI}.{skipped} If the package is installed, source <install dir>/vendors/{VENDOR}/bin/"
            f"set_env.bash (it sets ASCEND_CUSTOM_OPP_PATH) before Python starts. If not: {BUILD_STEPS}")


def load_bridge():
    """(actgrad._npu, None) when it is built and imports, else (None, what the PrivateUse1 kernels say instead)."""
    if importlib.util.find_spec("actgrad._npu") is None:
        return None, BUILD_HINT
    try:
        bridge = importlib.import_module("actgrad._npu")
    except ImportError as error:  # built, but its libraries do not load
        return None, _unusable(f"importing it failed with {error!r}")
    if not hasattr(bridge, "register_kernels"):
        return None, _unusable("it predates this actgrad (no register_kernels); rebuild it")
    return bridge, None


def register(lib) -> None:
    """PrivateUse1 kernels for every operator, when torch_npu is installed: the bridge's C++ kernels, or kernels
    that raise saying how to build (or rebuild) it or make its package visible. The bridge loads torch_npu and CANN's
    libraries here, at `import actgrad`."""
    if not torch_npu_available():
        return
    bridge, problem = load_bridge()
    if bridge is not None and not package_visible():  # its kernels would all fail in its lookup of the package
        bridge, problem = None, _package_not_visible()
    if bridge is not None:
        try:  # a bridge built for other arguments fails on the first operator, before it registers anything
            for op in OPS:
                bridge.register_kernels(NAMESPACE, *kernel_spec(op))
            return
        except TypeError as error:
            problem = _unusable(f"its register_kernels does not take this actgrad's arguments ({error}); rebuild it")
    kernel = _raising(problem)
    for op in OPS:
        lib.impl(op.name, kernel, "PrivateUse1")
        lib.impl(f"{op.name}.out", kernel, "PrivateUse1")
