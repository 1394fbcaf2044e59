"""Stand-in for torch_npu.utils.cpp_extension, for tests/test_npu_bridge.py: NpuExtension as in Ascend/pytorch
torch_npu/utils/cpp_extension.py at 9e73e708 (master), which adds the include/library dirs of torch_npu (this stand-in
package: its include/ holds the stand-in headers) and torch, and links c10, torch, torch_cpu, torch_python and
torch_npu."""
import os

import setuptools
import torch.utils.cpp_extension as TorchExtension

PYTORCH_NPU_INSTALL_PATH = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def NpuExtension(name, sources, *args, **kwargs):
    torch_npu_dir = PYTORCH_NPU_INSTALL_PATH
    include_dirs = kwargs.get("include_dirs", [])
    include_dirs.append(os.path.join(torch_npu_dir, "include"))
    include_dirs.append(os.path.join(torch_npu_dir, "include", "third_party", "acl", "inc"))
    include_dirs.append(os.path.join(torch_npu_dir, "include", "third_party", "hccl", "inc"))
    include_dirs += TorchExtension.include_paths()
    kwargs["include_dirs"] = include_dirs

    library_dirs = kwargs.get("library_dirs", [])
    library_dirs.append(os.path.join(torch_npu_dir, "lib"))
    library_dirs += TorchExtension.library_paths()
    kwargs["library_dirs"] = library_dirs

    kwargs["libraries"] = kwargs.get("libraries", []) + ["c10", "torch", "torch_cpu", "torch_python", "torch_npu"]
    kwargs["language"] = "c++"
    return setuptools.Extension(name, sources, *args, **kwargs)
