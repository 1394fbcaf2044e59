"""Runs actgrad.npu.register() with the stub torch_npu of site_packages/ (and, with --bridge, the stub actgrad._npu
of bridge/), then calls every operator's PrivateUse1 kernel, functional and out=, as a call on NPU tensors would,
and prints {overload name: the error it raised} as JSON. ASCEND_CUSTOM_OPP_PATH and ASCEND_OPP_PATH are the
caller's. Run in a process of its own: the kernels it registers stay for the process."""
import json
import pathlib
import sys

import torch

import actgrad
from actgrad import library, npu
from actgrad.spec import OPS

STUB = pathlib.Path(__file__).resolve().parent
PRIVATE_USE1 = torch._C.DispatchKeySet(torch._C.DispatchKey.PrivateUse1)
REQUIRED_VALUE = {"float": 1.0, "bool": True}


def overload_calls():
    for op in OPS:
        packet = getattr(torch.ops.actgrad, op.name)
        required = {a.name: REQUIRED_VALUE[a.type] for a in op.attrs if a.required}
        yield packet.default, required
        yield packet.out, {**required, "out": torch.empty(2)}


def error_of(overload, kwargs) -> str:
    try:
        overload.redispatch(PRIVATE_USE1, torch.ones(2), torch.ones(2), **kwargs)
    except RuntimeError as error:
        return str(error)
    return "no error"


assert not npu.torch_npu_available(), "import actgrad registered the PrivateUse1 kernels already"
sys.path.insert(0, str(STUB / "site_packages"))  # torch_npu
if "--bridge" in sys.argv:
    actgrad.__path__.append(str(STUB / "bridge"))  # actgrad._npu
npu.register(library.lib)
print(json.dumps({overload.name(): error_of(overload, kwargs) for overload, kwargs in overload_calls()}))
