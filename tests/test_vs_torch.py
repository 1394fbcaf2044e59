"""actgrad against PyTorch 2.13 CPU's *_backward on finite inputs (contract A.2: equal where PyTorch defines the op).

Piecewise-linear ops: bit-exact. Transcendental ops: PyTorch's own error (vectorised exp) plus the contract's
target: <= 1 ulp apart for f16/bf16, <= 8 ulp for f32, away from the f32 exp underflow where both sides carry
subnormal intermediates (absolute bound there).
"""
import importlib
import math

import numpy as np
import pytest
import torch

import harness as H
import reference as R
import sweeps as S

DT = [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.DTYPES]


def finite_sample(dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.float32:
        x = torch.cat([torch.randn(30000, generator=g) * 4, torch.randn(10000, generator=g) * 60,
                       R.finite_values(torch.float16).float(), R.finite_values(torch.bfloat16).float()])
    else:
        x = R.finite_values(dtype)
    grad = (torch.randn(x.numel(), generator=g, dtype=torch.float64) * 3).to(dtype)
    grad[::7] = torch.tensor(1e-3, dtype=dtype)
    grad[1::11] = torch.tensor(3e4, dtype=dtype)
    return x.contiguous(), grad


def exact_cases():
    for b in [(-1.0, 1.0), (0.0, 6.0), (-0.7, 0.7), (-0.5, 0.5), (0.0, 0.0), (2.0, -2.0), (-1e-3, 2.5)]:
        yield "hardtanh_grad", {"min_val": b[0], "max_val": b[1]}
    for b in [(-1.0, 1.0), (0.0, 6.0), (-0.7, 0.7), (0.25, 0.25)]:
        for use_dst in (True, False):
            yield "clamp_backward", {"min": b[0], "max": b[1], "use_dst": use_dst}
    yield "hardsigmoid_backward", {}
    for a in [{"alpha": 1.0}, {"alpha": 0.0}, {"alpha": 0.3, "scale": 0.7}, {"alpha": 2.0, "input_scale": 0.5},
              {"alpha": S.SELU_ALPHA, "scale": S.SELU_SCALE}, {"alpha": 1.7, "input_scale": 1 / 1.7},
              {"alpha": 0.8, "scale": 1.3, "input_scale": 0.6}]:
        yield "elu_backward", {**a, "use_dst": True}


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op,attrs", [pytest.param(op, a, id=f"{op}-{S.case_id(a)}") for op, a in exact_cases()])
def test_piecewise_equals_torch(op, attrs, dtype):
    x, grad = finite_sample(dtype, seed=len(attrs))
    got = H.call(op, x, grad, **attrs)
    want = R.torch_reference(op, x, grad, **attrs)
    H.check_exact(got, want, {"saved": x, "grad": grad}, f"{op} {attrs} vs PyTorch")


def transcendental_cases():
    for a in [{"alpha": 1.0}, {"alpha": 0.5}, {"alpha": -0.75}, {"alpha": 0.0},
              {"alpha": S.SELU_ALPHA, "scale": S.SELU_SCALE}, {"alpha": 1.7, "input_scale": 1 / 1.7},
              {"alpha": 0.8, "scale": 1.3, "input_scale": 0.6}, {"alpha": 2.0, "input_scale": 3.0}]:
        yield "elu_backward", {**a, "use_dst": False}
    for b, t in [(1.0, 20.0), (1.0, math.inf), (2.0, 20.0), (-1.0, 20.0), (0.5, 5.0), (0.0, 20.0), (0.3, 4.0),
                 (-2.5, -1.0), (7.0, 1.0)]:
        yield "soft_plus_backward", {"beta": b, "threshold": t}


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op,attrs", [pytest.param(op, a, id=f"{op}-{S.case_id(a)}")
                                      for op, a in transcendental_cases()])
def test_transcendental_near_torch(op, attrs, dtype):
    x, grad = finite_sample(dtype, seed=len(attrs) + 1)
    a = H.full_attrs(op, attrs)
    xf = x.double()
    if op == "soft_plus_backward":
        bx = xf * a["beta"]
        # PyTorch forms grad*exp(bx)/(exp(bx)+1): inf/inf beyond, and the grad*exp(bx) product overflows first
        keep = ((bx.abs() < 80) & (grad.double().abs() * bx.clamp(max=80).exp() < 1e38)) | (bx.float() > a["threshold"])
        arg = bx
    else:
        arg = xf * a["input_scale"]
        keep = torch.ones_like(xf, dtype=torch.bool)
    x, grad, arg = x[keep], grad[keep], arg[keep]
    got = H.call(op, x, grad, **attrs)
    want = R.torch_reference(op, x, grad, **attrs)
    d = R.ulp_distance(got, want)
    tol = 8 if dtype == torch.float32 else 1
    if dtype == torch.float32:
        # PyTorch's exp takes the f32-rounded product beta*x (x*input_scale): up to half an ulp of the argument, which
        # exp turns into up to |arg| ulp of the result; actgrad undoes that rounding (accuracy tests: against float64)
        tol = tol + np.abs(arg.numpy())
    # both sides have subnormal f32 intermediates where the exponent argument is below ln(FLT_MIN)
    coef = R.exact(grad.abs()) * (abs(a["alpha"] * a["scale"] * a["input_scale"]) if op == "elu_backward" else 1)
    under = (arg.numpy() < R.LN_F32_MIN_NORMAL)
    if op == "elu_backward":
        under &= xf[keep].numpy() <= 0
    with np.errstate(all="ignore"):  # inf - inf where both overflow the dtype (then d == 0 anyway)
        err = np.abs(R.exact(got) - R.exact(want))
        ok = (d <= tol) | (under & (err <= 4 * coef * 2.0 ** -149 + 4 * R.ulp_of(want)))
    assert ok.all(), R.describe_mismatch(got, want, {"saved": x, "grad": grad}, mask=~ok)
    assert (d == 0).mean() > 0.5, "suspiciously far from PyTorch"


@pytest.mark.parametrize("dtype", DT)
def test_aten_dropins_match_torch(dtype):
    ag = H.ag()
    importlib.import_module("actgrad.aten")
    x, grad = finite_sample(dtype, seed=3)
    aten = torch.ops.aten
    H.check_exact(ag.aten.hardtanh_backward(grad, x, -0.5, 2.0), aten.hardtanh_backward(grad, x, -0.5, 2.0),
                  {"x": x, "g": grad})
    H.check_exact(ag.aten.hardsigmoid_backward(grad, x), aten.hardsigmoid_backward(grad, x), {"x": x, "g": grad})
    H.check_exact(ag.aten.elu_backward(grad, 1.5, 1.1, 0.5, True, x), aten.elu_backward(grad, 1.5, 1.1, 0.5, True, x),
                  {"x": x, "g": grad})
    xs = x[x.double() > -50]
    gs = grad[x.double() > -50]
    d = R.ulp_distance(ag.aten.elu_backward(gs, 1.5, 1.0, 1.0, False, xs), aten.elu_backward(gs, 1.5, 1.0, 1.0,
                                                                                           False, xs))
    assert d.max() <= (8 if dtype == torch.float32 else 1)
    keep = xs.double().abs() < 50
    d = R.ulp_distance(ag.aten.softplus_backward(gs[keep], xs[keep], 1.0, 20.0),
                       aten.softplus_backward(gs[keep], xs[keep], 1.0, 20.0))
    assert d.max() <= (8 if dtype == torch.float32 else 1)


def test_aten_dropin_elu_negative_alpha_on_result_is_rejected_like_torch():
    importlib.import_module("actgrad.aten")
    x = torch.randn(4)
    with pytest.raises(RuntimeError, match="negative slope") as ours:
        H.ag().aten.elu_backward(x, -0.5, 1.0, 1.0, True, x)
    with pytest.raises(RuntimeError, match="negative slope") as theirs:
        torch.ops.aten.elu_backward(x, -0.5, 1.0, 1.0, True, x)
    assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


@pytest.mark.parametrize("dtype", DT)
def test_autograd_gradients_match(dtype):
    """End to end: the gradient PyTorch's autograd computes for the forward functions equals actgrad fed with the
    tensor the forward saved (finite inputs)."""
    x = (torch.randn(5000, generator=torch.Generator().manual_seed(4), dtype=torch.float64) * 4).to(dtype)
    x[:6] = torch.tensor([-1.0, 1.0, 0.0, 3.0, -3.0, 6.0], dtype=dtype)
    g = (torch.randn(5000, dtype=torch.float64) * 2).to(dtype)
    F = torch.nn.functional
    ag = H.ag()

    def autograd(fn):
        xx = x.clone().requires_grad_(True)
        y = fn(xx)
        (gx,) = torch.autograd.grad(y, xx, g)
        return y.detach(), gx

    _, gx = autograd(lambda t: F.hardtanh(t, -1.0, 1.0))
    assert R.same_values(ag.hardtanh_grad(x, g), gx).all()
    _, gx = autograd(F.relu6)  # ReLU6: HardtanhGrad (or ClampBackward) on 0..6
    assert R.same_values(ag.clamp_backward(x, g, 0.0, 6.0, use_dst=False), gx).all()
    assert R.same_values(ag.hardtanh_grad(x, g, 0.0, 6.0), gx).all()
    assert R.same_values(ag.aten.hardtanh_backward(g, x, 0.0, 6.0), gx).all()
    _, gx = autograd(F.hardsigmoid)
    assert R.same_values(ag.hardsigmoid_backward(g, x), gx).all()
    y, gx = autograd(lambda t: F.elu(t, 0.9))
    assert (R.ulp_distance(ag.elu_backward(x, g, 0.9, use_dst=False), gx) <= (8 if dtype == torch.float32 else 1)).all()
    y, gx = autograd(F.selu)  # SELU: EluBackward with PyTorch's alpha and scale
    mine = ag.elu_backward(x, g, S.SELU_ALPHA, use_dst=False, scale=S.SELU_SCALE)
    assert (R.ulp_distance(mine, gx) <= (8 if dtype == torch.float32 else 1)).all()
    assert R.same_values(ag.aten.elu_backward(g, S.SELU_ALPHA, S.SELU_SCALE, 1.0, False, x), mine).all()
    y, gx = autograd(lambda t: F.celu(t, 1.5))  # CELU: EluBackward with input_scale 1/alpha
    mine = ag.elu_backward(x, g, 1.5, use_dst=False, input_scale=1 / 1.5)
    # ATen's f32 exp takes the rounded product x*(1/alpha), up to |x/alpha| ulp away (docs/operators.md)
    tol = 8 + np.abs(x.double().numpy() / 1.5) if dtype == torch.float32 else 1
    assert (R.ulp_distance(mine, gx) <= tol).all()
    assert R.same_values(ag.aten.elu_backward(g, 1.5, 1.0, 1 / 1.5, False, x), mine).all()
    y, gx = autograd(lambda t: F.softplus(t, 1.0, 20.0))
    mine = ag.soft_plus_backward(x, g, 1.0, 20.0)
    assert (R.ulp_distance(mine, gx) <= (8 if dtype == torch.float32 else 1)).all()
