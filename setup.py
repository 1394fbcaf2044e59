"""Builds actgrad: the Python package and actgrad._C, the CPU-twin backend (the Ascend C kernels of op_kernel/
compiled with g++ against sim/); and, where torch_npu is importable and ASCEND_HOME_PATH is a CANN toolkit,
actgrad._npu, the bridge through which the NPU (PrivateUse1) kernels run the CANN package's aclnn APIs. The CANN
package itself is built by `bash build.sh` (CANN 8.3 or later), never from here.

Build without isolation so the extensions compile against the torch (and torch_npu) that is installed:
    pip install --no-build-isolation -e .
"""
import glob
import importlib.util
import os
import sys

import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

ROOT = os.path.dirname(os.path.abspath(__file__))

NPU_BRIDGE = "actgrad._npu"
# The bridge and the twin's torch kernels it registers (tests/test_npu_bridge.py compiles these against stand-ins).
NPU_BRIDGE_SOURCES = [
    "op_host/torch_npu/aclnn_bridge.cpp",
    "op_host/torch_npu/aclnn_call.cpp",
    "op_host/torch_kernels.cpp",
    "op_host/lower_attrs.cpp",
]
NPU_BRIDGE_RETRY = ("With torch_npu installed and CANN's set_env.sh sourced (ASCEND_HOME_PATH set), rerun "
                    "`pip install -v --no-build-isolation -e .` in the repository root; -v shows the compiler output. "
                    "`python -m actgrad.npu_check` says what else is missing.")


def twin_extension():
    sources = sorted(glob.glob("op_kernel/*.cpp")) + [
        "op_host/elementwise_tiling.cpp",
        "op_host/row_tiling.cpp",
        "op_host/lower_attrs.cpp",
        "op_host/autograd_kernels.cpp",
        "op_host/torch_kernels.cpp",
        "op_host/twin_torch.cpp",
        "op_host/twin_launch.cpp",
        "op_host/py_bindings.cpp",
    ]
    return CppExtension(
        "actgrad._C",
        sources,
        include_dirs=[os.path.join(ROOT, d) for d in ("sim/include", "op_kernel", "op_host")],
        # -fopenmp: ATen's inline parallel_for (the twin runs its blocks on ATen's pool) is only parallel under OpenMP
        extra_compile_args=["-O3", "-fno-math-errno", "-fno-trapping-math", "-fopenmp"],
        extra_link_args=["-fopenmp"],
    )


def note(message: str) -> None:
    print(f"actgrad setup.py: {message}", file=sys.stderr)  # pip shows it with -v


def npu_bridge_extensions() -> list:
    """[actgrad._npu] where torch_npu is importable and ASCEND_HOME_PATH is a CANN toolkit; otherwise [] and the
    twin is all that is built."""
    if importlib.util.find_spec("torch_npu") is None:
        return []
    cann = os.environ.get("ASCEND_HOME_PATH", "")
    if not os.path.isfile(os.path.join(cann, "include", "aclnn", "acl_meta.h")):
        note(f"torch_npu is installed but ASCEND_HOME_PATH ({cann or 'not set'}) is not a CANN toolkit with the aclnn "
             f"headers (include/aclnn/acl_meta.h): {NPU_BRIDGE} is not built. {NPU_BRIDGE_RETRY}")
        return []
    try:
        import torch_npu
        from torch_npu.utils.cpp_extension import NpuExtension
    except Exception as error:  # torch_npu fails to import in many ways without a working CANN (OSError, RuntimeError)
        note(f"torch_npu does not import ({error!r}): {NPU_BRIDGE} is not built. {NPU_BRIDGE_RETRY}")
        return []
    torch_npu_dir = os.path.dirname(os.path.realpath(torch_npu.__file__))
    # NpuExtension adds <torch_npu>/include and torch's include and library dirs, and links c10, torch, torch_cpu,
    # torch_python and torch_npu; the ACL headers only in recent releases, and nothing of CANN.
    return [NpuExtension(
        NPU_BRIDGE,
        NPU_BRIDGE_SOURCES,
        # torch_npu's copy of the ACL headers first: its own headers include it by path, under the include guards
        # CANN's use too; CANN's include/ for aclnn/acl_meta.h
        include_dirs=[os.path.join(torch_npu_dir, "include", "third_party", "acl", "inc"),
                      os.path.join(cann, "include")],
        library_dirs=[os.path.join(cann, "lib64")],
        libraries=["ascendcl", "nnopbase"],  # aclGetRecentErrMsg; aclCreateTensor, aclDestroyTensor
        # the ABI of libtorch and libtorch_npu, whose std::string parameters the bridge passes
        extra_compile_args=["-O3", f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"],
        optional=True,  # a failed bridge build leaves no file behind that an install must copy
    )]


class Build(BuildExtension):
    def build_extension(self, ext):
        if ext.name != NPU_BRIDGE:
            return super().build_extension(ext)
        try:
            super().build_extension(ext)
        except Exception as error:  # compiler, linker or ninja: the bridge is optional, the twin installs regardless
            self.warn(f"{NPU_BRIDGE} (the NPU bridge) was not built: {str(error).rstrip('.')}. The CPU twin is built "
                      f"and installs; without the bridge, the operators on NPU tensors raise an error saying so. Fix "
                      f"the cause (the compiler output is above). {NPU_BRIDGE_RETRY}")


setup(
    name="actgrad",
    version="0.1.0",
    description="Ascend C backward kernels of activation functions, with a CPU twin of the Ascend C runtime",
    package_dir={"": "python"},
    packages=find_packages("python"),
    python_requires=">=3.10",
    install_requires=["torch==2.13.0", "numpy", "onnx", "protobuf"],
    extras_require={"npu": ["torch-npu==2.13.0"], "test": ["pytest", "numpy"]},
    ext_modules=[twin_extension(), *npu_bridge_extensions()],
    cmdclass={"build_ext": Build},
    # torch.compile(backend="actgrad"): torch finds backends in this group when asked for one by name
    entry_points={"torch_dynamo_backends": ["actgrad = actgrad:compile_backend"]},
    zip_safe=False,
)
