"""Drop-ins for ATen's activation backward functions, with PyTorch's exact signatures, computed by actgrad.

Values follow actgrad's contract (docs: README "Operators"), which equals PyTorch on finite inputs; NaN propagates
(PyTorch's result there depends on the element's position).

The scalar arguments take what torch.ops.aten.<name> takes, and refuse what it refuses with the exception type it
raises (tests/test_interfaces.py holds them against torch.ops.aten, kind by kind), the message naming the argument:
- a Scalar (min_val, alpha, beta, ...): bool, int (within [-2**63, 2**64)) or float, their subclasses (numpy.float64
  is a float), complex with a zero imaginary part, and whatever else PyTorch's Scalar parser takes (a torch.dtype
  counts as its enum value); not NumPy scalars other than numpy.float64, tensors, str or None (RuntimeError). An int
  outside that range is an OverflowError; a finite value beyond float32's range a RuntimeError (ATen computes these
  kernels' scalars in float32 and refuses to overflow).
- is_result (bool): True/False, None (False), or any object with a truth value that gives one (a number, a NumPy
  scalar, a one-element tensor), as pybind11 converts a bool; not str, list or dtype (RuntimeError).
"""
from __future__ import annotations

import math

import torch

_ops = torch.ops.actgrad
_FLOAT32_MAX = float(torch.finfo(torch.float32).max)
_SYMBOLIC = (torch.SymFloat, torch.SymInt, torch.SymBool)


def _type_name(value) -> str:
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _parsed_by_torch(fn: str, name: str, value) -> float:
    # PyTorch's own Scalar parser decides (the one torch.ops.aten.<name> runs): aten::scalar_tensor takes a Scalar
    try:
        return torch.ops.aten.scalar_tensor.default(value, dtype=torch.float64).item()
    except (TypeError, OverflowError) as error:
        raise type(error)(f"{fn}: {name} must be a number (a PyTorch Scalar), got {_type_name(value)}") from None
    except RuntimeError:
        if isinstance(value, complex):
            raise RuntimeError(f"{fn}: {name}={value!r} cannot be converted to float without overflow (a complex "
                               "Scalar must have a zero imaginary part)") from None
        raise RuntimeError(f"{fn}: {name} must be a number (a PyTorch Scalar: bool, int, float or complex; not a "
                           f"NumPy scalar, Tensor, str or None), got {_type_name(value)}") from None


def _scalar(fn: str, name: str, value):
    """A Scalar argument as torch.ops.aten takes it, as a float (symbolic values pass through)."""
    kind = type(value)
    if kind is float:
        number = value
    elif kind is int:
        if not -(2 ** 63) <= value < 2 ** 64:
            text = str(value) if len(str(value)) <= 40 else f"{str(value)[:37]}..."
            raise OverflowError(f"{fn}: {name}={text} does not fit PyTorch's Scalar (a 64-bit integer)")
        number = float(value)
    elif kind is bool:
        number = float(value)
    elif isinstance(value, _SYMBOLIC):
        return value
    else:
        number = _parsed_by_torch(fn, name, value)
    if abs(number) > _FLOAT32_MAX and not math.isinf(number):
        raise RuntimeError(f"{fn}: {name}={number!r} cannot be converted to float without overflow (outside "
                           "float32's range)")
    return number


def _bool(fn: str, name: str, value):
    """A bool argument as torch.ops.aten takes it (pybind11's conversion: None is False, else the truth value)."""
    if value is True or value is False:
        return value
    if value is None:
        return False
    if isinstance(value, torch.SymBool):
        return value
    truth = getattr(type(value), "__bool__", None)
    if truth is not None:
        try:
            result = truth(value)
        except Exception:  # noqa: BLE001 - as pybind11, a failing conversion is a refusal
            result = None
        if result is True or result is False:
            return result
    raise RuntimeError(f"{fn}: {name} must be a bool (or a value with a truth value: a number, a one-element tensor, "
                       f"None), got {_type_name(value)}")


def hardtanh_backward(grad_output: torch.Tensor, self: torch.Tensor, min_val: float, max_val: float) -> torch.Tensor:
    fn = "actgrad.aten.hardtanh_backward"
    return _ops.hardtanh_grad(self, grad_output, _scalar(fn, "min_val", min_val), _scalar(fn, "max_val", max_val))


def hardsigmoid_backward(grad_output: torch.Tensor, self: torch.Tensor) -> torch.Tensor:
    return _ops.hardsigmoid_backward(grad_output, self)


def elu_backward(grad_output: torch.Tensor, alpha: float, scale: float, input_scale: float, is_result: bool,
                 self_or_result: torch.Tensor) -> torch.Tensor:
    fn = "actgrad.aten.elu_backward"
    alpha = _scalar(fn, "alpha", alpha)
    scale = _scalar(fn, "scale", scale)
    input_scale = _scalar(fn, "input_scale", input_scale)
    is_result = _bool(fn, "is_result", is_result)
    # actgrad rejects it too (ValueError naming alpha; it judges the float32 value, so an alpha that rounds to -0
    # passes there); raised here with PyTorch's type and message.
    torch._check(not (is_result and alpha < 0), lambda: (
        "In-place elu backward calculation is triggered with a negative slope which is not supported. This is caused "
        "by calling in-place forward function with a negative slope, please call out-of-place version instead."))
    return _ops.elu_backward(self_or_result, grad_output, alpha, is_result, scale, input_scale)


def softplus_backward(grad_output: torch.Tensor, self: torch.Tensor, beta: float, threshold: float) -> torch.Tensor:
    fn = "actgrad.aten.softplus_backward"
    return _ops.soft_plus_backward(self, grad_output, _scalar(fn, "beta", beta), _scalar(fn, "threshold", threshold))


# piecewise-linear rectifiers, shrinks and Abs
def threshold_backward(grad_output: torch.Tensor, self: torch.Tensor, threshold: float) -> torch.Tensor:
    fn = "actgrad.aten.threshold_backward"
    return _ops.threshold_grad_v2_d(grad_output, self, _scalar(fn, "threshold", threshold))


def leaky_relu_backward(grad_output: torch.Tensor, self: torch.Tensor, negative_slope: float,
                        self_is_result: bool) -> torch.Tensor:
    fn = "actgrad.aten.leaky_relu_backward"
    negative_slope = _scalar(fn, "negative_slope", negative_slope)
    self_is_result = _bool(fn, "self_is_result", self_is_result)
    # the formula is the same on the forward output, which a negative slope would have flipped: ATen's check, with
    # its type and message
    torch._check(not self_is_result or negative_slope >= 0.0, lambda: (
        "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is "
        "caused by calling in-place forward function with a negative slope, please call out-of-place version "
        "instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
        "backward calculation with negative slope"))
    return _ops.leaky_relu_grad(grad_output, self, negative_slope)


def hardswish_backward(grad_output: torch.Tensor, self: torch.Tensor) -> torch.Tensor:
    return _ops.hard_swish_backward(self, grad_output)


def softshrink_backward(grad_output: torch.Tensor, self: torch.Tensor, lambd: float) -> torch.Tensor:
    return _ops.soft_shrink_grad(grad_output, self, _scalar("actgrad.aten.softshrink_backward", "lambd", lambd))


def hardshrink_backward(grad_out: torch.Tensor, self: torch.Tensor, lambd: float) -> torch.Tensor:
    return _ops.hard_shrink_grad(grad_out, self, _scalar("actgrad.aten.hardshrink_backward", "lambd", lambd))


# the sigmoid/tanh family, SiLU, LogSigmoid, Softsign, Sqrt
def sigmoid_backward(grad_output: torch.Tensor, output: torch.Tensor) -> torch.Tensor:
    return _ops.sigmoid_backward(output, grad_output, True)


def tanh_backward(grad_output: torch.Tensor, output: torch.Tensor) -> torch.Tensor:
    return _ops.tanh_backward(output, grad_output, True)


def silu_backward(grad_output: torch.Tensor, self: torch.Tensor) -> torch.Tensor:
    return _ops.silu_grad(grad_output, self)


def log_sigmoid_backward(grad_output: torch.Tensor, self: torch.Tensor, buffer: torch.Tensor) -> torch.Tensor:
    """The value is computed from self alone (ATen's CPU kernel reads buffer, the forward's exp(-|self|), instead:
    the same values for the buffer log_sigmoid_forward returns). buffer is checked as ATen checks it: a tensor
    broadcastable to self's shape, of self's dtype, on self's device (RuntimeError); a buffer that would broadcast the
    result to a larger shape, which ATen accepts, is refused too (actgrad's results have the inputs' shape). The
    result is laid out as ATen's, empty_like(grad_output)."""
    fn = "actgrad.aten.log_sigmoid_backward"
    torch._check(isinstance(buffer, torch.Tensor), lambda: (
        f"{fn}: buffer must be a Tensor (log_sigmoid_forward's second result), got {_type_name(buffer)}"))
    torch._check(buffer.dim() <= self.dim() and all(
        b == 1 or b == s for b, s in zip(reversed(buffer.shape), reversed(self.shape))), lambda: (
        f"{fn}: buffer of shape {tuple(buffer.shape)} must broadcast to self's shape {tuple(self.shape)}"))
    torch._check(buffer.dtype == self.dtype, lambda: (
        f"{fn}: buffer has dtype {buffer.dtype}, expected self's dtype {self.dtype}"))
    torch._check(buffer.device == self.device, lambda: (
        f"{fn}: buffer is on {buffer.device}, expected self's device {self.device}"))
    result = _ops.log_sigmoid_grad(grad_output, self)
    layout = torch.empty_like(grad_output)
    return result if result.stride() == layout.stride() else layout.copy_(result)  # copy_ is differentiable


# the smooth gates: GELU, FastGelu, Mish
def gelu_backward(grad_output: torch.Tensor, self: torch.Tensor, *, approximate: str = "none") -> torch.Tensor:
    # ATen's refusals, type and message: a value that is not a str does not match the schema, another str is
    # refused by the kernel (actgrad's own op would raise a ValueError naming the attribute)
    if isinstance(approximate, bytes):  # pybind11 takes bytes for a str, as ATen's schema parser does
        try:
            approximate = approximate.decode()
        except UnicodeDecodeError:
            pass
    if not isinstance(approximate, str):
        raise RuntimeError(f"actgrad.aten.gelu_backward: approximate must be a str, got {_type_name(approximate)}")
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _ops.gelu_backward(self, grad_output, approximate)


def mish_backward(grad_output: torch.Tensor, self: torch.Tensor) -> torch.Tensor:
    return _ops.mish_backward(self, grad_output)


# the row reductions: softmax and log-softmax backward
def _row_drop_in(fn: str, op, grad_output: torch.Tensor, output: torch.Tensor, dim: int, input_dtype: torch.dtype):
    """ATen's checks of dim and input_dtype, then the op. The result has grad_output's dtype and is contiguous, as
    ATen's CPU kernels give it; input_dtype matters to ATen only as half_to_float (a float32 grad_output for a float16
    forward input), which its CPU kernels refuse (RuntimeError) and its CUDA kernels accept, returning float16: actgrad
    refuses it as the CPU does, so a result never changes dtype behind the caller's back."""
    if isinstance(dim, bool) or not isinstance(dim, (int, torch.SymInt)):
        raise TypeError(f"{fn}: dim must be an int, got {_type_name(dim)}")
    if not isinstance(input_dtype, torch.dtype):
        raise TypeError(f"{fn}: input_dtype must be a torch.dtype, got {_type_name(input_dtype)}")
    if isinstance(grad_output, torch.Tensor):
        torch._check(not (grad_output.dtype == torch.float32 and input_dtype == torch.float16), lambda: (
            f"{fn}: a float32 grad_output for a float16 input (input_dtype=torch.float16) is not supported, as in "
            "ATen's CPU kernels (half to float softmax); pass grad_output.half(), or input_dtype=torch.float32"))
    return op(grad_output, output, dim)


def _softmax_backward_data(grad_output: torch.Tensor, output: torch.Tensor, dim: int,
                           input_dtype: torch.dtype) -> torch.Tensor:
    return _row_drop_in("actgrad.aten._softmax_backward_data", _ops.soft_max_backward, grad_output, output, dim,
                        input_dtype)


def _log_softmax_backward_data(grad_output: torch.Tensor, output: torch.Tensor, dim: int,
                               input_dtype: torch.dtype) -> torch.Tensor:
    return _row_drop_in("actgrad.aten._log_softmax_backward_data", _ops.log_softmax_backward, grad_output, output, dim,
                        input_dtype)
