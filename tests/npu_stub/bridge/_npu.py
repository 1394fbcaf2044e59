"""Stand-in for the bridge module actgrad._npu (op_host/torch_npu/aclnn_bridge.cpp), for tests/test_npu_bridge.py,
which puts this directory on actgrad.__path__. register_kernels takes the real one's arguments and registers PrivateUse1
kernels that raise naming this stub, so a test sees whose kernel an operator dispatches to."""
import torch

_libraries = []  # a torch.library.Library drops its kernels when it is collected


def register_kernels(ns, name, op_type, inputs, saved_index, attrs, dtypes, max_rank, layout_first, row_reduction):
    def kernel(*args, **kwargs):
        raise RuntimeError(f"stub actgrad._npu kernel of {op_type}")

    lib = torch.library.Library(ns, "IMPL")
    lib.impl(name, kernel, "PrivateUse1")
    lib.impl(f"{name}.out", kernel, "PrivateUse1")
    _libraries.append(lib)
