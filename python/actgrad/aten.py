"""Drop-ins for ATen's activation backward functions, with PyTorch's exact signatures, computed by actgrad.

Scalars are taken as Python numbers. Values follow actgrad's contract (docs: README "Operators"), which equals
PyTorch on finite inputs; NaN propagates (PyTorch's result there depends on the element's position).
"""
from __future__ import annotations

import torch

_ops = torch.ops.actgrad


def hardtanh_backward(grad_output: torch.Tensor, self: torch.Tensor, min_val: float, max_val: float) -> torch.Tensor:
    return _ops.hardtanh_grad(self, grad_output, float(min_val), float(max_val))


def hardsigmoid_backward(grad_output: torch.Tensor, self: torch.Tensor) -> torch.Tensor:
    return _ops.hardsigmoid_backward(grad_output, self)


def elu_backward(grad_output: torch.Tensor, alpha: float, scale: float, input_scale: float, is_result: bool,
                 self_or_result: torch.Tensor) -> torch.Tensor:
    # actgrad rejects it too (ValueError naming alpha; it judges the float32 value, so an alpha that rounds to -0
    # passes there); raised here with PyTorch's type and message.
    torch._check(not (is_result and alpha < 0), lambda: (
        "In-place elu backward calculation is triggered with a negative slope which is not supported. This is caused "
        "by calling in-place forward function with a negative slope, please call out-of-place version instead."))
    return _ops.elu_backward(self_or_result, grad_output, float(alpha), bool(is_result), float(scale),
                             float(input_scale))


def softplus_backward(grad_output: torch.Tensor, self: torch.Tensor, beta: float, threshold: float) -> torch.Tensor:
    return _ops.soft_plus_backward(self, grad_output, float(beta), float(threshold))
