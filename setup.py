"""Builds actgrad: the Python package and actgrad._C, the CPU-twin backend (the Ascend C kernels of op_kernel/
compiled with g++ against sim/). The NPU backend (CANN custom-op package + actgrad._npu) is built by
scripts/build_npu_package.sh, and from here only where CANN and torch_npu are both present.

Build without isolation so the extension compiles against the torch that is installed:
    pip install --no-build-isolation -e .
"""
import glob
import importlib.util
import os
import subprocess
import sys

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

ROOT = os.path.dirname(os.path.abspath(__file__))


def twin_extension():
    sources = sorted(glob.glob("op_kernel/*.cpp")) + [
        "op_host/elementwise_tiling.cpp",
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


class Build(BuildExtension):
    NPU_BUILD_SCRIPT = os.path.join(ROOT, "scripts", "build_npu_package.sh")

    def run(self):
        super().run()
        # NPU backend only where the toolkit and torch_npu exist; never a requirement of the twin
        if os.environ.get("ASCEND_HOME_PATH") and importlib.util.find_spec("torch_npu") is not None:
            self.build_npu_backend()

    def build_npu_backend(self):
        """Runs scripts/build_npu_package.sh; a failure only warns, so the twin still installs."""
        # the bridge must be built for the Python this install is for, not whichever `python` is first on PATH
        status = subprocess.call(["bash", self.NPU_BUILD_SCRIPT], env={**os.environ, "PYTHON": sys.executable})
        if status != 0:  # pip shows this only with -v: the NPU ops themselves say what is missing when called
            self.warn(f"actgrad's NPU backend was not built: {self.NPU_BUILD_SCRIPT} exited with status {status} "
                      "(its output is above). The CPU twin is built and installs anyway; without the bridge or its "
                      "package, the ops on NPU tensors raise an error saying what is missing. Fix the cause, then "
                      "rerun the NPU build by hand, with CANN's set_env.sh sourced: "
                      f"PYTHON=<the python that has torch_npu> bash {self.NPU_BUILD_SCRIPT}")


setup(
    name="actgrad",
    version="0.1.0",
    description="Ascend C backward kernels of activation functions, with a CPU twin of the Ascend C runtime",
    package_dir={"": "python"},
    packages=["actgrad"],
    python_requires=">=3.10",
    install_requires=["torch==2.13.0", "numpy"],
    extras_require={"npu": ["torch-npu==2.13.0"], "test": ["pytest", "numpy"]},
    ext_modules=[twin_extension()],
    cmdclass={"build_ext": Build},
    zip_safe=False,
)
