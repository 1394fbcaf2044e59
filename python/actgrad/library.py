"""torch.ops.actgrad: defines every operator of the spec (functional and .out) with its CPU (twin) and Meta kernels,
its autograd (no double backward: see autograd.py), and the PrivateUse1 kernels when torch_npu is installed."""
from __future__ import annotations

import torch

from . import _C, autograd, npu
from .kernels import launching_kernels, meta_kernels
from .schema import NAMESPACE, functional_schema, out_schema
from .soc import default_soc
from .spec import OPS

lib = torch.library.Library(NAMESPACE, "DEF")


def _launch_on_twin(op_type, in0, in1, out, attrs):
    return _C.launch(op_type, in0, in1, out, attrs, default_soc())


def _register(op) -> None:
    lib.define(functional_schema(op))
    lib.define(out_schema(op))
    for dispatch_key, (functional, out_variant) in (("CPU", launching_kernels(op, _launch_on_twin)),
                                                    ("Meta", meta_kernels(op))):
        lib.impl(op.name, functional, dispatch_key)
        lib.impl(f"{op.name}.out", out_variant, dispatch_key)


for _op in OPS:
    _register(_op)
autograd.register(lib, OPS)
npu.register(lib)
