"""The smooth gates: GELU (erf and tanh), FastGelu and Mish.

References in float64 from the contract's formulas (PyTorch / oneDNN / CANN), with actgrad's NaN policy, the limits
at infinite saved values (GELU'(+inf) = FastGelu'(+inf) = Mish'(+inf) = 1, 0 at -inf) and select semantics where
the f32 exp factor of the derivative underflows to 0. Their accuracy regions (contract A.2): 8 ulp f32; an absolute
1e-6*|g| where the two terms of the derivative cancel by more than a factor 1.5 (and for GELU below -4); an
absolute 4*|g*coef|*2**-149 where the f32 exp factor is subnormal.
"""
from __future__ import annotations

import math

import numpy as np
import torch

import reference as R
from refs import OpRef

LN_F32_MIN_NORMAL = R.LN_F32_MIN_NORMAL
SUBNORMAL_ULP = 2.0 ** -149
CANCELLATION = 1.5  # two terms cancelling by more than this factor take the absolute bound


def _as64(x, g):
    return np.asarray(x, np.float64), np.asarray(g, np.float64)


@R.quiet
def _finish(d, x, g, zero):
    """g*d with the limits at infinite x already in d, select semantics where the derivative is 0, NaN policy."""
    out = R._zero_where_derivative_is_zero(g * d, g, zero)
    return R._nan_policy(out, x, g)


@R.quiet
def _cancel_bound(terms_max, d, g):
    """1e-6*|g| where the derivative's terms cancel by more than the factor (contract A.2), else 0."""
    cancels = terms_max > CANCELLATION * np.abs(d)
    return np.where(cancels, 1e-6 * np.abs(g), 0.0)


# ------------------------------------------------------------------------------------------------ GELU
GELU_TANH_K = math.sqrt(2.0 / math.pi)
GELU_TANH_KAPPA = 0.044715
GELU_TAIL = -4.0  # below it the contract's absolute bound applies to both forms (A.2)


@R.quiet
def _gelu_terms(x, approximate):
    """The derivative's two terms in float64 (finite x): erf form Phi(x) and x*phi(x) (Phi through erfc, accurate in
    the tail); tanh form 0.5*(1 + tanh(u)) and 0.5*x*(1 - tanh(u)^2)*u', written with sigmoid(2u) so that neither
    cancels inside itself, and the exp factor whose f32 underflow makes the kernel's derivative 0."""
    if approximate == "none":
        phi = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
        cdf = 0.5 * torch.special.erfc(torch.from_numpy(-x / math.sqrt(2.0))).numpy()
        return cdf, x * phi, np.exp(-0.5 * x * x)
    k, kappa = GELU_TANH_K, GELU_TANH_KAPPA
    two_u = 2.0 * k * (x + kappa * x ** 3)
    s, co = R.sigmoid_f64(two_u), R.sigmoid_f64(-two_u)
    return s, s * co * 2.0 * x * k * (1.0 + 3.0 * kappa * x * x), np.exp(-np.abs(two_u))


@R.quiet
def gelu_backward_f64(x, g, approximate="none"):
    x, g = _as64(x, g)
    first, second, e = _gelu_terms(x, approximate)
    d = np.where(np.isinf(x), (x > 0).astype(np.float64), first + second)
    zero = (x < 0) & (e.astype(np.float32) == 0)
    return _finish(d, x, g, zero)


@R.quiet
def gelu_backward_abs_bound(x, g, approximate="none"):
    x, g = _as64(x, g)
    first, second, _ = _gelu_terms(x, approximate)
    d = first + second
    bound = _cancel_bound(np.maximum(np.abs(first), np.abs(second)), d, g)
    return np.where(x < GELU_TAIL, 1e-6 * np.abs(g), bound)


def _torch_gelu(saved, grad, approximate="none"):
    return torch.ops.aten.gelu_backward(grad, saved, approximate=approximate)


# ------------------------------------------------------------------------------------------------ FastGelu
FAST_GELU_COEF = float(np.float32(1.702))  # CANN's f32 constant


@R.quiet
def _fast_gelu_terms(x):
    """(s, s*(1 - s)*z) of the derivative s*(1 + z*(1 - s)), z = 1.702*x, in float64 (finite x)."""
    z = FAST_GELU_COEF * x
    s, co = R.sigmoid_f64(z), R.sigmoid_f64(-z)
    return s, s * co * z


@R.quiet
def fast_gelu_grad_f64(x, g):
    x, g = _as64(x, g)
    s, second = _fast_gelu_terms(x)
    d = np.where(np.isinf(x), (x > 0).astype(np.float64), s + second)
    zero = (x < 0) & (np.exp(-FAST_GELU_COEF * np.abs(x)).astype(np.float32) == 0)
    return _finish(d, x, g, zero)


@R.quiet
def fast_gelu_grad_abs_bound(x, g):
    x, g = _as64(x, g)
    s, second = _fast_gelu_terms(x)
    d = s + second
    bound = _cancel_bound(np.maximum(np.abs(s), np.abs(second)), d, g)
    # x < 0: d ~ e*(1 + z) with e = exp(1.702*x) subnormal in f32
    arg = FAST_GELU_COEF * x
    under = (x < 0) & (arg < LN_F32_MIN_NORMAL)
    coef = np.abs(1.0 + arg)
    return np.maximum(bound, np.where(under, 4.0 * np.abs(g) * coef * SUBNORMAL_ULP, 0.0))


# ------------------------------------------------------------------------------------------------ Mish
@R.quiet
def _mish_terms(x):
    """(tanh(sp), x*sigmoid(x)*(1 - tanh(sp)^2)) of Mish' in float64 (finite x), PyTorch's / oneDNN's formula."""
    t = np.tanh(np.logaddexp(0.0, x))
    return t, x * R.sigmoid_f64(x) * (1.0 - t * t)


@R.quiet
def mish_backward_f64(x, g):
    x, g = _as64(x, g)
    t, second = _mish_terms(x)
    d = np.where(np.isinf(x), (x > 0).astype(np.float64), t + second)
    zero = np.exp(x).astype(np.float32) == 0
    return _finish(d, x, g, zero)


@R.quiet
def mish_backward_abs_bound(x, g):
    x, g = _as64(x, g)
    t, second = _mish_terms(x)
    bound = _cancel_bound(np.maximum(np.abs(t), np.abs(second)), t + second, g)
    under = x < LN_F32_MIN_NORMAL  # d ~ exp(x)*(1 + x)
    return np.maximum(bound, np.where(under, 4.0 * np.abs(g) * np.abs(1.0 + x) * SUBNORMAL_ULP, 0.0))


def _torch_mish(saved, grad, **_):
    return torch.ops.aten.mish_backward(grad, saved)


REFS: tuple[OpRef, ...] = (
    OpRef(
        op="gelu_backward",
        f64=gelu_backward_f64,
        cases=({}, {"approximate": "tanh"}),
        typical={},
        bounds=lambda a: [0.0, GELU_TAIL, 14.5],  # the sign, the contract's tail, the Mills clamp
        f32_ulp=8,
        abs_bound=gelu_backward_abs_bound,
        torch=_torch_gelu,
    ),
    OpRef(
        op="fast_gelu_grad",
        f64=fast_gelu_grad_f64,
        cases=({},),
        typical={},
        bounds=lambda a: [0.0, 128.0],
        f32_ulp=8,
        abs_bound=fast_gelu_grad_abs_bound,
    ),
    OpRef(
        op="mish_backward",
        f64=mish_backward_f64,
        cases=({},),
        typical={},
        bounds=lambda a: [0.0, 16.0, 128.0],
        f32_ulp=8,
        abs_bound=mish_backward_abs_bound,
        torch=_torch_mish,
    ),
)
