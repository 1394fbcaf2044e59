"""The `.out` kernels for negative-bit views (torch._neg_view(t), complex.conj().imag): ATen's math-bit fallback
hands a mutable op a resolved clone of its `out` and expects the op to return it, which actgrad's `.out` overloads
(returning nothing, see schema.out_schema) do not; PyTorch then asserts and aborts the process. This kernel, at the
Negative dispatch key, takes over for any call with a negative view among its tensors: it computes from the resolved
inputs into a plain tensor and copies that into `out`, whose copy_ writes through the negation, as ATen's own
`out=` functions behave. (The conjugate bit exists only on complex tensors, which every operator rejects by dtype.)
"""
from __future__ import annotations

import torch


def negative_view_out_kernel(packet):
    def kernel(*args, out):
        resolved = [a.resolve_neg() if isinstance(a, torch.Tensor) else a for a in args]
        if not out.is_neg():
            packet.out(*resolved, out=out)
            return
        # same checks as any call (out's dtype, device and shape included) before anything is written
        plain = torch.empty(out.shape, dtype=out.dtype, device=out.device)
        packet.out(*resolved, out=plain)
        out.copy_(plain)
    return kernel
