"""PrivateUse1 ("npu") kernels, registered only when torch_npu is installed (it is never imported otherwise).

They are the C++ kernels of the CPU twin (op_host/torch_kernels.cpp: same checks, same out= handling) with the
launch of the CANN package's aclnn<OpType> APIs, registered by the bridge module actgrad._npu, which
scripts/build_npu_package.sh builds together with the package. Without it, calling an op on an NPU tensor raises
a RuntimeError that says how to build it.
"""
from __future__ import annotations

import importlib
import importlib.util

from .schema import NAMESPACE, kernel_spec
from .spec import OPS

BUILD_STEPS = ("On a host with CANN (source <cann>/set_env.sh so that ASCEND_HOME_PATH is set) and torch_npu, run "
               "scripts/build_npu_package.sh, install the custom_opp_*.run it prints, and source the vendor's "
               "bin/set_env.bash before importing torch.")
BUILD_HINT = "actgrad's NPU kernels are not built. " + BUILD_STEPS


def torch_npu_available() -> bool:
    return importlib.util.find_spec("torch_npu") is not None


def bridge_missing(*args, **kwargs):
    """The PrivateUse1 kernel of every operator when actgrad._npu is not built."""
    raise RuntimeError(BUILD_HINT)


def _unusable_bridge(reason: str):
    def kernel(*args, **kwargs):
        raise RuntimeError(f"actgrad's NPU bridge actgrad._npu is built but unusable: {reason}. {BUILD_STEPS}")
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
    return bridge, None


def register(lib) -> None:
    """PrivateUse1 kernels for every operator, when torch_npu is installed: the bridge's C++ kernels, or kernels
    that raise saying how to build (or rebuild) it. The bridge loads torch_npu and CANN's libraries here, at
    `import actgrad`."""
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
