"""Piecewise-linear rectifiers, shrinks and Abs: bit-exact against their float32 steps.

Each reference is written from the contract (op-semantics A.2, B.4), not from the kernel: the region tests compare the
saved value with the float32 attribute as PyTorch writes them (x > threshold, -lambd <= x <= lambd, x <= -3, x < 3),
the value is grad or one float32 product, then select semantics (a zero derivative gives 0 for any grad but NaN) and
the NaN policy. ``f64`` is the same in float64 (the values are exact in both: a select or one product).
"""
from __future__ import annotations

import math

import numpy as np
import torch

import reference as R
from refs import OpRef


def _piecewise(float_type):
    """The operators' formulas in one float type: float32 (the bit-exact contract) or float64."""
    F = float_type

    def attr(v):  # the IR's float32 attribute, in the computing type
        return F(R._f32(v))

    def finish(out, x, g, zero):
        out = np.asarray(out, F)
        return R._nan_policy(R._zero_where_derivative_is_zero(out, g, zero), x, g)

    @R.quiet
    def relu_backward(x, g, use_dst=True):
        x, g = np.asarray(x, F), np.asarray(g, F)
        return finish(np.where(x > 0, g, F(0)), x, g, ~(x > 0))

    @R.quiet
    def threshold_grad_v2_d(x, g, threshold):
        x, g = np.asarray(x, F), np.asarray(g, F)
        t = attr(threshold)
        return finish(np.where(x <= t, F(0), g), x, g, x <= t)

    @R.quiet
    def leaky_relu_grad(x, g, negative_slope=0.0):
        x, g = np.asarray(x, F), np.asarray(g, F)
        s = attr(negative_slope)
        return finish(np.where(x > 0, g, g * s), x, g, (x <= 0) & (s == 0))

    @R.quiet
    def hard_swish_backward(x, g):
        x, g = np.asarray(x, F), np.asarray(g, F)
        c = x / F(3) + F(0.5)  # PyTorch: x / three + one_half, a true division
        linear = (x > -3) & (x < 3)
        out = np.where(x <= -3, F(0), np.where(x < 3, g * c, g))
        return finish(out, x, g, (x <= -3) | (linear & (c == 0)))

    @R.quiet
    def shrink_grad(x, g, lambd=0.5):
        x, g = np.asarray(x, F), np.asarray(g, F)
        lam = attr(lambd)
        band = (x >= -lam) & (x <= lam)
        return finish(np.where(band, F(0), g), x, g, band)

    @R.quiet
    def abs_backward(x, g):
        x, g = np.asarray(x, F), np.asarray(g, F)
        return finish(np.where(x > 0, g, np.where(x < 0, -g, F(0))), x, g, x == 0)

    return {"relu_backward": relu_backward, "threshold_grad_v2_d": threshold_grad_v2_d,
            "leaky_relu_grad": leaky_relu_grad, "hard_swish_backward": hard_swish_backward,
            "soft_shrink_grad": shrink_grad, "hard_shrink_grad": shrink_grad, "abs_backward": abs_backward}


F32 = _piecewise(np.float32)
F64 = _piecewise(np.float64)

_aten = torch.ops.aten


def _ref(op, cases, typical, bounds, torch_fn, required=None):
    return OpRef(op=op, f64=F64[op], f32=F32[op], cases=cases, typical=typical, bounds=bounds, torch=torch_fn,
                 required=required or {})


# Attribute sets of the sweeps: bounds that bf16/f16 cannot represent (the float32 compare decides), zero and
# negative values (a shrink's negative lambd passes grad everywhere), infinite ones.
_LAMBDS = ({"lambd": 0.5}, {"lambd": 0.3}, {"lambd": 0.0}, {"lambd": -0.5}, {"lambd": math.inf})

REFS: tuple[OpRef, ...] = (
    _ref("relu_backward", ({"use_dst": True}, {"use_dst": False}), {"use_dst": True}, lambda a: [0.0],
         lambda x, g, use_dst=True: _aten.threshold_backward(g, x, 0)),
    _ref("threshold_grad_v2_d",
         ({"threshold": 0.7}, {"threshold": 0.0}, {"threshold": -1.5}, {"threshold": 1e-30}, {"threshold": math.inf}),
         {"threshold": 0.7}, lambda a: [float(R._f32(a["threshold"]))],
         lambda x, g, threshold: _aten.threshold_backward(g, x, threshold), required={"threshold": 0.7}),
    _ref("leaky_relu_grad",
         ({"negative_slope": 0.0}, {"negative_slope": 0.01}, {"negative_slope": -0.3}, {"negative_slope": 1.0},
          {"negative_slope": 3e38}),
         {"negative_slope": 0.01}, lambda a: [0.0],
         lambda x, g, negative_slope=0.0: _aten.leaky_relu_backward(g, x, negative_slope, False)),
    _ref("hard_swish_backward", ({},), {}, lambda a: [-3.0, -1.5, 3.0],
         lambda x, g: _aten.hardswish_backward(g, x)),
    _ref("soft_shrink_grad", _LAMBDS, {"lambd": 0.5}, lambda a: [-float(R._f32(a["lambd"])), float(R._f32(a["lambd"]))],
         lambda x, g, lambd=0.5: _aten.softshrink_backward(g, x, lambd)),
    _ref("hard_shrink_grad", _LAMBDS, {"lambd": 0.5}, lambda a: [-float(R._f32(a["lambd"])), float(R._f32(a["lambd"]))],
         lambda x, g, lambd=0.5: _aten.hardshrink_backward(g, x, lambd)),
    _ref("abs_backward", ({},), {}, lambda a: [0.0], lambda x, g: g * torch.sgn(x)),
)
