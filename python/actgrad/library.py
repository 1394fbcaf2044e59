"""torch.ops.actgrad: defines every operator of the spec (functional and .out) with its CPU (twin) and Meta kernels,
its autograd (no double backward: see autograd.py), and the PrivateUse1 kernels when torch_npu is installed.

The CPU kernels are C++ (op_host/torch_kernels.cpp with the twin's launch, op_host/twin_torch.cpp): they check their
arguments as the Meta kernels here do, with the same messages, and launch on the twin; a Python kernel would cost six
times the launch of a small tensor. The Meta kernels stay in Python, where torch._check keeps symbolic shapes."""
from __future__ import annotations

import torch

from . import _C, autograd, graph, npu, vmap
from .math_bits import negative_view_out_kernel
from .meta_kernels import meta_kernels
from .schema import NAMESPACE, functional_schema, kernel_spec, out_schema
from .spec import OPS

lib = torch.library.Library(NAMESPACE, "DEF")


def _register(op) -> None:
    lib.define(functional_schema(op))
    lib.define(out_schema(op))
    _C.register_twin_kernels(NAMESPACE, *kernel_spec(op))
    functional, out_variant = meta_kernels(op)
    lib.impl(op.name, functional, "Meta")
    lib.impl(f"{op.name}.out", out_variant, "Meta")
    lib.impl(f"{op.name}.out", negative_view_out_kernel(getattr(torch.ops.actgrad, op.name)), "Negative")


for _op in OPS:
    _register(_op)
autograd.register(lib, OPS)
vmap.register(lib)  # batching rules: torch.vmap runs each operator once on the whole batch
npu.register(lib)
graph.register_torchair_converters()  # GE converters, when torchair is importable
