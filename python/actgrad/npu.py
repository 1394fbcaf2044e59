"""PrivateUse1 ("npu") kernels, registered only when torch_npu is installed (it is never imported otherwise).

They are the C++ kernels of the CPU twin (op_host/torch_kernels.cpp: same checks, same out= handling) with the
launch of the CANN package's aclnn<OpType> APIs, registered by the bridge module actgrad._npu, which
scripts/build_npu_package.sh builds together with the package. Without the bridge, or without the installed package
where torch_npu looks for it, calling an op on an NPU tensor raises a RuntimeError that says what is missing and how
to build or install it.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path

from .schema import NAMESPACE, kernel_spec
from .spec import OPS

BUILD_STEPS = ("On a host with CANN (source <cann>/set_env.sh so that ASCEND_HOME_PATH is set) and torch_npu, run "
               "scripts/build_npu_package.sh, install the custom_opp_*.run it prints, and source the vendor's "
               "bin/set_env.bash before importing torch.")
BUILD_HINT = "actgrad's NPU kernels are not built. " + BUILD_STEPS

# scripts/build_npu_package.sh passes -Dvendor_name=actgrad: its .run installs into <dir>/vendors/actgrad, whose
# bin/set_env.bash puts that directory on ASCEND_CUSTOM_OPP_PATH.
VENDOR = "actgrad"
# npu/CMakeLists.txt's cust_opapi library: the aclnn<OpType> APIs that the bridge's EXEC_NPU_CMD looks up
CUSTOM_OPAPI = Path("op_api", "lib", "libcust_opapi.so")
# Every aclnn API of this package is its own (spec.OP_TYPE_PREFIX): a vendor library naming the first in its dynamic
# symbols is actgrad's, whatever its directory is called.
PACKAGE_API = OPS[0].aclnn_api


def torch_npu_available() -> bool:
    return importlib.util.find_spec("torch_npu") is not None


def bridge_missing(*args, **kwargs):
    """The PrivateUse1 kernel of every operator when actgrad._npu is not built."""
    raise RuntimeError(BUILD_HINT)


def _unusable_bridge(reason: str):
    def kernel(*args, **kwargs):
        raise RuntimeError(f"actgrad's NPU bridge actgrad._npu is built but unusable: {reason}. {BUILD_STEPS}")
    return kernel


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


def package_visible() -> bool:
    """Whether torch_npu can find actgrad's aclnn APIs: it looks for CUSTOM_OPAPI in these vendor directories
    (op-plugin's GetOpApiFuncAddr). Without them, CANN's own libopapi would serve the APIs whose names it shares
    (aclnnHardsigmoidBackward, aclnnEluBackward, ...) with other arguments, so the bridge must not run then."""
    return any(_exports_package_api(d / CUSTOM_OPAPI) for d in _custom_opp_dirs() + _default_vendor_dirs())


def _package_not_visible():
    custom = os.environ.get("ASCEND_CUSTOM_OPP_PATH")
    message = (f"actgrad's NPU bridge actgrad._npu is built, but torch_npu cannot see actgrad's CANN operator package "
               f"(its aclnn APIs): no {CUSTOM_OPAPI} exporting {PACKAGE_API} is in a vendor directory on "
               f"ASCEND_CUSTOM_OPP_PATH ({'not set' if custom is None else repr(custom)}) or loaded by "
               f"$ASCEND_OPP_PATH/vendors/config.ini. "
               f"If the package is installed, source <install dir>/vendors/{VENDOR}/bin/set_env.bash (it sets "
               f"ASCEND_CUSTOM_OPP_PATH) before importing torch. If not: {BUILD_STEPS}")

    def kernel(*args, **kwargs):
        raise RuntimeError(message)
    return kernel


def _bridge():
    """(actgrad._npu, None) when it can serve, else (None, the PrivateUse1 kernel that says why not)."""
    if importlib.util.find_spec("actgrad._npu") is None:
        return None, bridge_missing
    try:
        bridge = importlib.import_module("actgrad._npu")
    except ImportError as error:  # built, but its libraries do not load
        return None, _unusable_bridge(f"importing it failed with {error!r}")
    if not hasattr(bridge, "register_kernels"):
        return None, _unusable_bridge("it predates this actgrad (no register_kernels); rebuild it")
    if not package_visible():  # else its kernels fail in EXEC_NPU_CMD, with torch_npu's "not found in libopapi.so"
        return None, _package_not_visible()
    return bridge, None


def register(lib) -> None:
    """PrivateUse1 kernels for every operator, when torch_npu is installed: the bridge's C++ kernels, or kernels
    that raise saying how to build (or rebuild) it or make its package visible. The bridge loads torch_npu and CANN's
    libraries here, at `import actgrad`."""
    if not torch_npu_available():
        return
    bridge, missing = _bridge()
    if bridge is not None:
        try:  # a bridge built for other arguments fails on the first operator, before it registers anything
            for op in OPS:
                bridge.register_kernels(NAMESPACE, *kernel_spec(op))
            return
        except TypeError as error:
            missing = _unusable_bridge(f"its register_kernels does not take this actgrad's arguments ({error}); "
                                       "rebuild it")
    for op in OPS:
        lib.impl(op.name, missing, "PrivateUse1")
        lib.impl(f"{op.name}.out", missing, "PrivateUse1")
