"""PrivateUse1 ("npu") kernels, registered only when torch_npu is installed (it is never imported otherwise).

They launch the CANN package's aclnn<OpType> APIs through the bridge module actgrad._npu, which
scripts/build_npu_package.sh builds together with the package. Without it, calling an op on an NPU tensor raises
a RuntimeError that says how to build it.
"""
from __future__ import annotations

import importlib
import importlib.util

from .kernels import launching_kernels
from .spec import OPS

BUILD_HINT = ("actgrad's NPU kernels are not built. On a host with CANN (source <cann>/set_env.sh so that "
              "ASCEND_HOME_PATH is set) and torch_npu, run scripts/build_npu_package.sh, install the "
              "custom_opp_*.run it prints, and source the vendor's bin/set_env.bash before importing torch.")


def torch_npu_available() -> bool:
    return importlib.util.find_spec("torch_npu") is not None


def _bridge():
    try:
        return importlib.import_module("actgrad._npu")
    except ImportError as error:
        raise RuntimeError(BUILD_HINT) from error


def _launch_on_npu(op_type, in0, in1, out, attrs):
    _bridge().launch(op_type, in0, in1, out, attrs)


def register(lib) -> None:
    if not torch_npu_available():
        return
    for op in OPS:
        functional, out_variant = launching_kernels(op, _launch_on_npu)
        lib.impl(op.name, functional, "PrivateUse1")
        lib.impl(f"{op.name}.out", out_variant, "PrivateUse1")
