"""The sigmoid/tanh family, SiLU, LogSigmoid, Softsign and Sqrt.

The float64 references are the contract's formulas (op-semantics A.2, B 4.10-4.15, C 3.15-3.26) evaluated in double:
the derivative's value at the saved value, times the gradient, with actgrad's NaN policy and select semantics. The
use_dst forms are the polynomials of the forward output at the given d (any d, not only a forward output's range).
Two places take the float32 evaluation the contract prescribes (A.2: f32 compute) rather than the exact value, each
where no forward output can lie: the dst forms' f32 factor overflows (d*(1-d) or (1-d)*(1+d) for |d| > 1.8e19, 2*d
for |d| >= 2^127), and there the factor is +-inf (sigmoid, tanh) or the derivative 0 (sqrt), as PyTorch's f32 kernels
give it.
"""
from __future__ import annotations

import math

import numpy as np
import torch

import reference as R
from refs import OpRef

_EXP_UNDERFLOW = R.LN_F32_MIN_NORMAL  # exp(a) is an f32 subnormal (or 0) for a below this
_SUBNORMAL_ULP = 2.0 ** -149
SILU_DERIVATIVE_ZERO = -1.2784645427610738  # SiLU'(x) = 0


def _f32_overflows(v):
    """Where the f32 value of an exactly computed float64 v is infinite."""
    with np.errstate(all="ignore"):
        return np.isfinite(v) & np.isinf(np.asarray(v, np.float64).astype(np.float32))


@R.quiet
def _times_derivative(g, derivative, *inputs, is_zero=None):
    """g * derivative with select semantics where the f32 derivative is exactly 0 (is_zero; by default where the
    derivative rounds to an f32 0) and the NaN policy."""
    if is_zero is None:
        is_zero = np.asarray(derivative, np.float64).astype(np.float32) == 0
    return R._nan_policy(R._zero_where_derivative_is_zero(g * derivative, g, is_zero), *inputs)


@R.quiet
def logistic_derivative_f64(x, k=1.0):
    """sigmoid'(k*x) = e/(1+e)^2 with e = exp(-|k*x|): both signs alike, 0 at +-inf."""
    e = np.exp(-np.abs(k * np.asarray(x, np.float64)))
    return e / (1.0 + e) ** 2


@R.quiet
def sigmoid_backward_f64(x, g, use_dst=True):
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    if use_dst:
        derivative = x * (1.0 - x)  # exact in double for an f32 d
        derivative = np.where(_f32_overflows(derivative), np.sign(derivative) * np.inf, derivative)
    else:
        derivative = logistic_derivative_f64(x)
    return _times_derivative(g, derivative, x, g)


@R.quiet
def tanh_backward_f64(x, g, use_dst=True):
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    if use_dst:
        derivative = (1.0 - x) * (1.0 + x)
        derivative = np.where(_f32_overflows(derivative), np.sign(derivative) * np.inf, derivative)
    else:
        derivative = 4.0 * logistic_derivative_f64(x, 2.0)
    return _times_derivative(g, derivative, x, g)


@R.quiet
def silu_derivative_f64(x):
    """sigmoid(x)*(1 + x*sigmoid(-x)); the limits 1 at +inf and 0 at -inf."""
    x = np.asarray(x, np.float64)
    finite = np.where(np.isfinite(x), x, 0.0)
    value = R.sigmoid_f64(finite) * (1.0 + finite * R.sigmoid_f64(-finite))
    return np.where(x == math.inf, 1.0, np.where(x == -math.inf, 0.0, value))


@R.quiet
def silu_grad_f64(x, g):
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    return _times_derivative(g, silu_derivative_f64(x), x, g)


@R.quiet
def log_sigmoid_grad_f64(x, g):
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    return _times_derivative(g, R.sigmoid_f64(-x), x, g)


@R.quiet
def softsign_grad_f64(x, g):
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    # the kernel divides g twice and never forms the derivative: it is 0 only at x = +-inf
    return _times_derivative(g, 1.0 / (1.0 + np.abs(x)) ** 2, x, g, is_zero=np.isinf(x))


@R.quiet
def sqrt_backward_f64(x, g, use_dst=True):
    """g/(2*d) with d = dst or sqrt(src); d = -0 is 0 (derivative +inf); a negative src is NaN, a negative dst the
    formula's value; where the f32 2*d overflows the f32 derivative is 0."""
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    d = np.sqrt(np.where(x == 0, 0.0, x)) if not use_dst else np.where(x == 0, 0.0, x)
    twice = 2.0 * d
    derivative_is_zero = np.isinf(twice) | _f32_overflows(twice)
    with np.errstate(all="ignore"):
        out = np.where(derivative_is_zero, g * 0.0, g / twice)
    out = R._zero_where_derivative_is_zero(out, g, derivative_is_zero)
    return R._nan_policy(out, x, g)


# ---- absolute bounds (contract A.2) ------------------------------------------------------------------------------
@R.quiet
def _underflow_bound(argument, g, coefficient):
    """4*|g*coef|*2^-149 where the exponent's argument is below ln(FLT_MIN), else 0."""
    return np.where(argument < _EXP_UNDERFLOW, 4.0 * np.abs(g * coefficient) * _SUBNORMAL_ULP, 0.0)


@R.quiet
def sigmoid_backward_abs_bound(x, g, use_dst=True):
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    return np.zeros_like(x) if use_dst else _underflow_bound(-np.abs(x), g, 1.0)


@R.quiet
def tanh_backward_abs_bound(x, g, use_dst=True):
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    return np.zeros_like(x) if use_dst else _underflow_bound(-2.0 * np.abs(x), g, 4.0)


@R.quiet
def silu_cancels(x):
    """Where SiLU's two terms sigmoid(x) and x*sigmoid'(x), i.e. 1 and x*sigmoid(-x), cancel by more than 1.5."""
    x = np.asarray(x, np.float64)
    term = x * R.sigmoid_f64(-x)
    return np.maximum(1.0, np.abs(term)) > 1.5 * np.abs(1.0 + term)


@R.quiet
def silu_grad_abs_bound(x, g):
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    cancel = np.where(silu_cancels(x), 1e-6 * np.abs(g), 0.0)
    # SiLU'(x) ~ e^x*(1 + x) for x -> -inf: the coefficient of the exp is |1 + x| (bounded by 1 + |x|)
    return np.maximum(cancel, _underflow_bound(x, g, 1.0 + np.abs(x)))


@R.quiet
def log_sigmoid_grad_abs_bound(x, g):
    x = np.asarray(x, np.float64)
    g = np.asarray(g, np.float64)
    return _underflow_bound(-x, g, 1.0)


# ---- PyTorch ------------------------------------------------------------------------------------------------------
def _sigmoid_torch(saved, grad, use_dst=True):
    return torch.ops.aten.sigmoid_backward(grad, saved if use_dst else torch.sigmoid(saved))


def _tanh_torch(saved, grad, use_dst=True):
    return torch.ops.aten.tanh_backward(grad, saved if use_dst else torch.tanh(saved))


def _log_sigmoid_torch(saved, grad):
    """ATen's values, in the layout of a TensorIterator on (grad, saved): ATen's log_sigmoid_backward allocates its
    result empty_like(grad_output) instead (actgrad.aten.log_sigmoid_backward does so too, the op follows the
    family's rule)."""
    values = torch.ops.aten.log_sigmoid_backward(grad, saved, torch.ops.aten.log_sigmoid_forward(saved)[1])
    return torch.empty_like(torch.mul(grad, saved)).copy_(values)


def _sqrt_torch(saved, grad, use_dst=True):
    return torch.div(grad, 2 * (saved if use_dst else torch.sqrt(saved)))  # autograd's formula for sqrt


REFS: tuple[OpRef, ...] = (
    OpRef(
        op="sigmoid_backward",
        f64=sigmoid_backward_f64,
        cases=({"use_dst": True}, {"use_dst": False}),
        typical={"use_dst": False},
        bounds=lambda a: [0.0, 1.0] if a.get("use_dst", True) else [0.0],
        f32_ulp=lambda a: 4 if a["use_dst"] else 8,  # the dst form has one factor, the src form is compound
        abs_bound=sigmoid_backward_abs_bound,
        torch=_sigmoid_torch,
    ),
    OpRef(
        op="tanh_backward",
        f64=tanh_backward_f64,
        cases=({"use_dst": True}, {"use_dst": False}),
        typical={"use_dst": False},
        bounds=lambda a: [-1.0, 1.0] if a.get("use_dst", True) else [0.0],
        f32_ulp=lambda a: 4 if a["use_dst"] else 8,  # the dst form has one factor, the src form is compound
        abs_bound=tanh_backward_abs_bound,
        torch=_tanh_torch,
    ),
    OpRef(
        op="silu_grad",
        f64=silu_grad_f64,
        cases=({},),
        typical={},
        bounds=lambda a: [SILU_DERIVATIVE_ZERO, 0.0],
        f32_ulp=8,
        abs_bound=silu_grad_abs_bound,
        torch=lambda saved, grad: torch.ops.aten.silu_backward(grad, saved),
    ),
    OpRef(
        op="log_sigmoid_grad",
        f64=log_sigmoid_grad_f64,
        cases=({},),
        typical={},
        bounds=lambda a: [0.0],
        f32_ulp=8,
        abs_bound=log_sigmoid_grad_abs_bound,
        torch=_log_sigmoid_torch,
    ),
    OpRef(
        op="softsign_grad",
        f64=softsign_grad_f64,
        cases=({},),
        typical={},
        bounds=lambda a: [0.0],
        f32_ulp=4,
    ),
    OpRef(
        op="sqrt_backward",
        f64=sqrt_backward_f64,
        cases=({"use_dst": True}, {"use_dst": False}),
        typical={"use_dst": True},
        bounds=lambda a: [0.0],
        f32_ulp=4,
        torch=_sqrt_torch,
    ),
)
