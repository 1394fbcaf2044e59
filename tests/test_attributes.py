"""Attribute sweeps: every attribute over ordinary and corner values, each checked against the contract reference on
a sample holding the special values, each bound with its neighbours, and random values."""
import math

import numpy as np
import pytest
import torch

import harness as H
import reference as R
import sweeps as S
from test_op_values import op_bounds

DT = [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.DTYPES]

ATTR_SWEEP = {
    "hardtanh_grad": [
        {"min_val": -1.0, "max_val": 1.0}, {"min_val": 0.0, "max_val": 6.0}, {"min_val": -0.5, "max_val": 0.5},
        {"min_val": 0.0, "max_val": 0.0}, {"min_val": 1.0, "max_val": -1.0}, {"min_val": 5.0, "max_val": 5.0},
        {"min_val": -math.inf, "max_val": math.inf}, {"min_val": -math.inf, "max_val": 0.0},
        {"min_val": 0.1, "max_val": 0.2}, {"min_val": -1e-40, "max_val": 1e-40}, {"min_val": -1e39, "max_val": 3e38},
        {"min_val": -65504.0, "max_val": 65520.0}, {"min_val": 1.0 + 2 ** -30, "max_val": 3.0 - 2 ** -30},
    ],
    "clamp_backward": [
        {"min": -1.0, "max": 1.0, "use_dst": True}, {"min": -1.0, "max": 1.0, "use_dst": False},
        {"min": 0.0, "max": 0.0, "use_dst": True}, {"min": 0.25, "max": 0.25, "use_dst": False},
        {"min": -0.25, "max": 0.25, "use_dst": True}, {"min": 0.0, "max": 6.0, "use_dst": False},
        {"min": -math.inf, "max": math.inf, "use_dst": True}, {"min": 1.0, "max": math.inf, "use_dst": False},
        {"min": -0.7, "max": 0.3, "use_dst": True},
    ],
    "hardsigmoid_backward": [
        {"alpha": 1 / 6, "beta": 0.5}, {"alpha": 0.2, "beta": 0.5}, {"alpha": 1.28, "beta": 0.128},
        {"alpha": 0.166667, "beta": 3.0}, {"alpha": -1 / 6, "beta": 0.5}, {"alpha": 1e-3, "beta": 0.0},
        {"alpha": 100.0, "beta": -2.0}, {"alpha": 0.1, "beta": 1.0}, {"alpha": 1 / 3, "beta": 0.5},
        {"alpha": 3.0, "beta": 0.7}, {"alpha": -2.5, "beta": -4.0},
    ],
    "elu_backward": [
        {"alpha": 1.0, "use_dst": True}, {"alpha": 0.0, "use_dst": True}, {"alpha": 0.25, "use_dst": True},
        {"alpha": 3.5, "use_dst": True, "scale": 0.5}, {"alpha": 1.0, "use_dst": True, "input_scale": 0.3},
        {"alpha": 2.0, "use_dst": True, "scale": 1.1, "input_scale": 2.0},
        {"alpha": S.SELU_ALPHA, "use_dst": True, "scale": S.SELU_SCALE},
        {"alpha": 1.0, "use_dst": False}, {"alpha": 0.0, "use_dst": False}, {"alpha": -0.25, "use_dst": False},
        {"alpha": -2.0, "use_dst": False, "scale": 0.5}, {"alpha": 0.25, "use_dst": False, "input_scale": 0.5},
        {"alpha": 2.0, "use_dst": False, "scale": 1.5, "input_scale": 4.0},
        {"alpha": 1.3, "use_dst": False, "input_scale": 1 / 1.3},
        {"alpha": S.SELU_ALPHA, "use_dst": False, "scale": S.SELU_SCALE},
        {"alpha": 1.0, "use_dst": False, "scale": -1.0},
    ],
    "soft_plus_backward": [
        {"beta": 1.0, "threshold": math.inf}, {"beta": 1.0, "threshold": 20.0}, {"beta": 1.0, "threshold": 0.0},
        {"beta": 1.0, "threshold": -3.0}, {"beta": 1.0, "threshold": -math.inf}, {"beta": 0.0, "threshold": 20.0},
        {"beta": -1.0, "threshold": math.inf}, {"beta": -1.0, "threshold": 2.0}, {"beta": -0.5, "threshold": 1.0},
        {"beta": 2.0, "threshold": 20.0}, {"beta": 4.0, "threshold": 1.0}, {"beta": 0.25, "threshold": 0.5},
        {"beta": 0.7, "threshold": 10.0}, {"beta": 100.0, "threshold": 20.0}, {"beta": 1e-3, "threshold": math.inf},
    ],
}


def _sample(op, attrs, dtype):
    vals = H.interesting_values(dtype, op_bounds(op, attrs), n_random=200, seed=7)
    grads = torch.tensor([1.0, -2.5, 1e-3, 3e4, math.inf, -0.0, math.nan], dtype=torch.float64).to(dtype)
    return H.pairs(vals, grads)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op,attrs", [pytest.param(op, a, id=f"{op}-{S.case_id(a)}")
                                      for op, cases in ATTR_SWEEP.items() for a in cases])
def test_attribute_sweep(op, attrs, dtype):
    saved, grad = _sample(op, attrs, dtype)
    got = H.call(op, saved, grad, **attrs)
    H.check_op(op, got, saved, grad, attrs, f"{op} {attrs}")


def test_hardsigmoid_band_is_computed_from_the_float32_attributes():
    # (1 - beta)/alpha is 0.97701389827 with the double alpha, 0.97701388522 with its float32 value (the IR's): the
    # float32 x = 0.97701388597 lies between, so it is outside the band (0), where the double alpha would say inside
    alpha, x = 0.5117634466472399, torch.tensor([0.977013885974884, 0.9770138263702393])
    got = H.call("hardsigmoid_backward", x, torch.ones(2), alpha=alpha, beta=0.5)
    assert got.tolist() == [0.0, float(np.float32(alpha))]


@pytest.mark.parametrize("dtype", DT)
def test_hardtanh_min_above_max_gives_zeros(dtype):
    x = H.interesting_values(dtype, [], n_random=100)
    x = x[~torch.isnan(x)]
    g = torch.full_like(x, 3.0)
    for lo, hi in [(1.0, -1.0), (0.5, 0.25), (math.inf, -math.inf)]:
        got = H.call("hardtanh_grad", x, g, min_val=lo, max_val=hi)
        assert torch.equal(got, torch.zeros_like(x)), (lo, hi)


@pytest.mark.parametrize("dtype", DT)
def test_clamp_use_dst_does_not_change_the_band(dtype):
    x, g = _sample("clamp_backward", {"min": -0.5, "max": 2.0}, dtype)
    a = H.call("clamp_backward", x, g, min=-0.5, max=2.0, use_dst=True)
    b = H.call("clamp_backward", x, g, min=-0.5, max=2.0, use_dst=False)
    assert R.same_values(a, b).all()
    assert (a == 0).any() and (a != 0).any()


@pytest.mark.parametrize("dtype", DT)
def test_elu_use_dst_selects_the_formula(dtype):
    x = torch.tensor([-0.5, -2.0], dtype=dtype)
    g = torch.ones(2, dtype=dtype)
    dst = H.call("elu_backward", x, g, alpha=1.0, use_dst=True)
    src = H.call("elu_backward", x, g, alpha=1.0, use_dst=False)
    assert dst.tolist() == [0.5, -1.0]  # g*(x + alpha)
    want = R.round_f64(np.exp([-0.5, -2.0]), dtype)  # g*alpha*exp(x)
    assert (R.ulp_distance(src, want) <= R.ULP_TARGET[dtype]).all()


def test_default_attributes():
    x = torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.0, 25.0])
    g = torch.linspace(1.0, 2.0, 9)
    ag = H.ag()
    pairs = [
        (ag.hardtanh_grad(x, g), R.expected("hardtanh_grad", x, g)),
        (ag.hardsigmoid_backward(g, x), R.expected("hardsigmoid_backward", x, g)),
        (ag.clamp_backward(x, g, -1.0, 1.0), R.expected("clamp_backward", x, g)),
        (ag.elu_backward(x, g, 1.0), R.expected("elu_backward", x, g, alpha=1.0, use_dst=True)),
        (ag.soft_plus_backward(x, g), R.expected("soft_plus_backward", x, g, beta=1.0, threshold=math.inf)),
    ]
    for got, want in pairs[:4]:
        assert R.same_values(got, want).all(), (got, want)
    got, want = pairs[4]
    assert (R.ulp_distance(got, want) <= 4).all()
    # threshold default is +inf: x = 25 is not passed through but goes through sigmoid (rounds to g in f32 anyway)
    # and positional attributes reach the kernel
    assert ag.hardtanh_grad(x, g, -0.5, 0.5).tolist() == R.expected("hardtanh_grad", x, g, min_val=-0.5,
                                                                    max_val=0.5).tolist()
    assert ag.hardsigmoid_backward(g, x, 0.5, 0.5).tolist() == R.expected(
        "hardsigmoid_backward", x, g, alpha=0.5, beta=0.5).tolist()


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("beta", [1.0, 0.7, -2.3])
@pytest.mark.parametrize("threshold", [17.5, 20.0, math.inf])
def test_softplus_threshold_at_or_above_17_5_passes_grad_through_without_its_test(threshold, beta, dtype):
    """SoftplusGrad skips the threshold test for thresholds >= 17.5: above that its f32 sigmoid is exactly 1, so the
    formula itself gives grad. Every saved value with beta*x above 17.5 (every f16/bf16 pattern; f32 densely up to 40
    and then sparsely to inf) must give grad's exact bits, whatever grad is."""
    if dtype == torch.float32:
        lo = torch.tensor(17.5 / abs(beta), dtype=torch.float32).view(torch.int32)
        hi = torch.tensor(40.0 / abs(beta), dtype=torch.float32).view(torch.int32)
        x = torch.cat([torch.arange(int(lo), int(hi), 7, dtype=torch.int32).view(torch.float32),
                       torch.tensor([1e5, 3e38, math.inf])])
        x = x * (1.0 if beta > 0 else -1.0)
    else:
        x = R.all_values(dtype)
    x = x[(x.double() * beta > 17.5) & ~x.isnan()]
    grads = torch.tensor([1.0, -2.5, 3e38, -math.inf, math.inf, 1e-45, -0.0, 1e-3], dtype=torch.float64).to(dtype)
    saved, grad = H.pairs(x, grads)
    got = H.call("soft_plus_backward", saved, grad, beta=beta, threshold=threshold)
    assert torch.equal(got.view(torch.int16 if dtype != torch.float32 else torch.int32),
                       grad.view(torch.int16 if dtype != torch.float32 else torch.int32))
    H.check_op("soft_plus_backward", got, saved, grad, {"beta": beta, "threshold": threshold}, "softplus threshold")
