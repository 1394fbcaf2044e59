"""Values of the operators: exhaustive f16/bf16 sweeps, special values, hand-computed cases.

The contract (op-semantics A.2): piecewise-linear ops bit-exact against reference.expected (f32 steps, one
rounding); transcendental ops within 1 ulp (f16/bf16) / 4 ulp (f32) of the correctly rounded float64 value;
NaN in -> NaN out; infinite gradient where the derivative is exactly 0 (outside a band) -> 0.
"""
import math

import numpy as np
import pytest
import torch

import harness as H
import reference as R
import sweeps as S

DT = [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.DTYPES]


# ------------------------------------------------------------------------------------------------ exhaustive sweeps
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op,case", [pytest.param(op, i, id=f"{op}-{S.case_id(a)}") for op, i, a in S.all_cases()])
def test_exhaustive(op, case, dtype):
    stats = S.checked(op, dtype, case)
    assert stats["n_target"] > 0
    if not R.is_transcendental(op, H.full_attrs(op, S.CASES[op][case])):
        assert stats["max_ulp"] == 0


# ------------------------------------------------------------------------------------------------ special values
def op_bounds(op: str, attrs: dict):
    return R.REFS[op].bounds(H.full_attrs(op, attrs))


SPECIAL_CASES = [(op, attrs) for op, _, attrs in S.all_cases()]


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op,attrs", [pytest.param(op, a, id=f"{op}-{S.case_id(a)}") for op, a in SPECIAL_CASES])
def test_special_values(op, attrs, dtype):
    vals = H.interesting_values(dtype, op_bounds(op, attrs), n_random=48, seed=len(op))
    saved, grad = H.pairs(vals, vals)
    got = H.call(op, saved, grad, **attrs)
    H.check_op(op, got, saved, grad, attrs, f"{op} {attrs}")


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", R.OP_NAMES)
def test_nan_in_either_input_gives_nan(op, dtype):
    vals = H.interesting_values(dtype, [], n_random=16)
    nan = torch.full_like(vals, math.nan)
    saved = torch.cat([nan, vals, nan])
    grad = torch.cat([vals, nan, nan])
    for use_dst in (True, False):
        extra = {"use_dst": use_dst} if "use_dst" in H.full_attrs(op, {}) else {}
        if op in R.ROW_OP_NAMES:  # one row, holding NaNs: NaN throughout
            extra = {"axis": -1}
        got = H.call(op, saved, grad, **extra)
        assert torch.isnan(got).all(), (op, extra, got[~torch.isnan(got)][:8])


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op,attrs", [("hardtanh_grad", {"min_val": 3.0, "max_val": -3.0}),
                                      ("hardtanh_grad", {"min_val": 0.5, "max_val": 0.5}),
                                      ("clamp_backward", {"min": 0.0, "max": 0.0, "use_dst": False})])
def test_nan_in_either_input_gives_nan_with_an_empty_band(op, attrs, dtype):
    # an empty band takes its own path in BandGrad (no lane is inside, NaN found by a compare of its own)
    vals = H.interesting_values(dtype, [], n_random=16)
    nan = torch.full_like(vals, math.nan)
    got = H.call(op, torch.cat([nan, vals, nan]), torch.cat([vals, nan, nan]), **attrs)
    assert torch.isnan(got).all(), (op, attrs, got[~torch.isnan(got)][:8])
    finite = vals[torch.isfinite(vals)]
    assert torch.equal(H.call(op, finite, finite, **attrs), torch.zeros_like(finite))


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op,attrs,outside", [
    ("hardtanh_grad", {}, [-1.0, 1.0, -2.0, 5.0, -math.inf, math.inf]),
    ("hardtanh_grad", {"min_val": 3.0, "max_val": -3.0}, [0.0, -1.0, 2.0]),
    ("clamp_backward", {"min": -1.0, "max": 1.0}, [-1.0, 1.0, -2.0, 5.0, -math.inf, math.inf]),
    ("clamp_backward", {"min": 0.0, "max": 0.0, "use_dst": False}, [0.0, -0.0, 1.0, -1.0]),
    ("hardsigmoid_backward", {}, [-3.0, 3.0, -7.0, 100.0, -math.inf, math.inf]),
    # the transcendental and ELU forms: the f32 derivative is exactly 0 (a zero x factor or coefficient, or exp
    # underflowing), and grad*0 would be NaN
    ("elu_backward", {"alpha": 1.0}, [-1.0]),  # dst = -alpha: x + alpha*scale = 0
    ("elu_backward", {"alpha": 0.0}, [0.0, -0.0]),
    ("elu_backward", {"alpha": 1.0, "use_dst": False}, [-math.inf, -200.0]),
    ("elu_backward", {"alpha": 0.0, "use_dst": False}, [-1.0, -0.0]),
    ("elu_backward", {"alpha": 1.0, "scale": 0.0}, [2.0, math.inf]),
    ("elu_backward", {"alpha": 1.0, "input_scale": 0.0, "use_dst": False}, [-1.0, -200.0]),
    ("elu_backward", {"alpha": 1.0, "input_scale": 0.0}, [-1.0, -0.5]),
    ("soft_plus_backward", {}, [-math.inf, -200.0]),
    ("soft_plus_backward", {"beta": -1.0}, [math.inf, 200.0]),
    ("soft_plus_backward", {"beta": 2.0, "threshold": 20.0}, [-60.0]),
])
def test_infinite_grad_where_derivative_is_zero_gives_zero(op, attrs, outside, dtype):
    x = torch.tensor(outside, dtype=dtype).repeat(3)
    n = len(outside)
    g = torch.tensor([math.inf] * n + [-math.inf] * n + [math.nan] * n, dtype=dtype)
    got = H.call(op, x, g, **attrs)
    assert got[:2 * n].tolist() == [0.0] * 2 * n
    assert torch.isnan(got[2 * n:]).all()  # a NaN grad still gives NaN there


@pytest.mark.parametrize("op,attrs", [("soft_plus_backward", {"beta": 3.0}),
                                      ("soft_plus_backward", {"beta": 0.9997315406799316, "threshold": 5.0}),
                                      ("elu_backward", {"alpha": 0.3, "scale": 2.5, "use_dst": False, "input_scale": 0.7})])
def test_infinite_grad_where_exp_underflows_to_zero(op, attrs):
    # x around the f32 exp underflow (argument ln 2**-150): the result is 0 where the kernel's f32 factor is 0,
    # the signed inf where it is not, never NaN; within the target of that boundary either (harness.check_op)
    c = attrs.get("beta", attrs.get("input_scale"))
    steps = [torch.tensor(-150 * math.log(2) / c)]
    for _ in range(300):
        steps.append(torch.nextafter(steps[-1], torch.tensor(-math.inf)))
    x = torch.stack(steps).repeat(2)
    g = torch.cat([torch.full((301,), math.inf), torch.full((301,), -math.inf)])
    got = H.call(op, x, g, **attrs)
    assert not torch.isnan(got).any() and (got == 0).any() and torch.isinf(got).any()
    H.check_op(op, got, x, g, attrs, f"{op} {attrs}")


# ------------------------------------------------------------------------------------------------ hand-computed values
def f32(v):
    return float(np.float32(v))


def below(v, dtype=torch.float32):
    return float(torch.nextafter(torch.tensor(v, dtype=dtype), torch.tensor(-math.inf, dtype=dtype)))


def above(v, dtype=torch.float32):
    return float(torch.nextafter(torch.tensor(v, dtype=dtype), torch.tensor(math.inf, dtype=dtype)))


# (op, attrs, [(saved, grad, expected f32 value)]) -- written from the contract, independent of reference.py
HAND = [
    ("hardtanh_grad", {}, [(-1.0, 2.0, 0.0), (above(-1.0), 2.0, 2.0), (1.0, 2.0, 0.0), (below(1.0), -3.0, -3.0),
                           (0.0, 7.0, 7.0), (-0.0, 7.0, 7.0), (0.5, math.inf, math.inf), (5.0, math.inf, 0.0),
                           (-5.0, -math.inf, 0.0), (math.inf, 1.0, 0.0), (1e-45, 1e-45, 1e-45)]),
    ("hardtanh_grad", {"min_val": -0.7, "max_val": 0.7},
     [(f32(-0.7), 1.0, 0.0), (above(f32(-0.7)), 1.0, 1.0), (f32(0.7), 1.0, 0.0), (below(f32(0.7)), 1.0, 1.0)]),
    ("hardtanh_grad", {"min_val": 2.0, "max_val": -2.0}, [(0.0, 1.0, 0.0), (1.0, 1.0, 0.0), (-3.0, 1.0, 0.0)]),
    ("hardtanh_grad", {"min_val": -math.inf, "max_val": math.inf},
     [(3e38, 1.0, 1.0), (-3e38, 2.0, 2.0), (math.inf, 1.0, 0.0), (-math.inf, 1.0, 0.0)]),
    ("hardtanh_grad", {"min_val": -1e39, "max_val": 1e39},  # bounds beyond f32: nearest rounding gives +-inf
     [(3e38, 1.0, 1.0), (math.inf, 1.0, 0.0)]),
    ("hardsigmoid_backward", {}, [(3.0, 1.0, 0.0), (-3.0, 1.0, 0.0), (below(3.0), 1.0, f32(1 / 6)),
                                  (above(-3.0), 6.0, f32(6 * np.float32(1 / 6))), (0.0, 1.0, f32(1 / 6)),
                                  (math.nan, 1.0, math.nan), (1.0, math.nan, math.nan), (4.0, math.inf, 0.0),
                                  (2.0, -math.inf, -math.inf)]),
    ("hardsigmoid_backward", {"alpha": 0.5, "beta": 0.25},  # band (-0.5, 1.5)
     [(-0.5, 1.0, 0.0), (above(-0.5), 1.0, 0.5), (1.5, 1.0, 0.0), (below(1.5), 3.0, 1.5)]),
    ("hardsigmoid_backward", {"alpha": -0.5, "beta": 0.25},  # band (-1.5, 0.5), value grad*(-0.5)
     [(-1.5, 1.0, 0.0), (above(-1.5), 1.0, -0.5), (0.5, 1.0, 0.0), (below(0.5), 3.0, -1.5), (1.0, 1.0, 0.0)]),
    ("hardsigmoid_backward", {"alpha": 0.1, "beta": 0.5},  # bounds -5 and 5 computed in double
     [(-5.0, 1.0, 0.0), (above(-5.0), 1.0, f32(0.1)), (5.0, 1.0, 0.0), (below(5.0), 1.0, f32(0.1))]),
    ("clamp_backward", {"min": 0.0, "max": 6.0, "use_dst": True},
     [(0.0, 1.0, 0.0), (-0.0, 1.0, 0.0), (6.0, 1.0, 0.0), (1e-45, 1.0, 1.0), (below(6.0), 2.0, 2.0)]),
    ("clamp_backward", {"min": -2.0, "max": 2.0, "use_dst": False},
     [(-2.0, 1.0, 0.0), (2.0, 1.0, 0.0), (1.0, 5.0, 5.0), (-10.0, math.inf, 0.0), (math.nan, 0.0, math.nan)]),
    ("elu_backward", {"alpha": 1.0, "use_dst": True},
     [(0.0, 2.0, 2.0), (-0.0, 2.0, 2.0), (1e-45, 2.0, 2.0), (-1.0, 2.0, 0.0), (-0.5, 2.0, 1.0), (3.0, 2.0, 2.0),
      (math.nan, 1.0, math.nan)]),
    ("elu_backward", {"alpha": 0.5, "use_dst": True, "scale": 2.0, "input_scale": 3.0},
     [(0.0, 1.0, 3.0), (-1.0, 1.0, 0.0), (-0.5, 2.0, 3.0), (4.0, 1.5, 3.0)]),
    ("elu_backward", {"alpha": 1.0, "use_dst": False},
     [(0.0, 2.0, 2.0), (1e-45, 2.0, 2.0), (-1e-45, 2.0, 2.0), (-math.inf, 2.0, 0.0), (math.inf, 2.0, 2.0),
      (-1.0, 1.0, f32(math.exp(-1))), (-10.0, 1.0, f32(math.exp(-10))), (math.nan, 1.0, math.nan),
      (-1.0, math.nan, math.nan)]),
    ("elu_backward", {"alpha": -0.75, "use_dst": False}, [(0.0, 1.0, -0.75), (-2.0, 1.0, f32(-0.75 * math.exp(-2)))]),
    ("elu_backward", {"alpha": S.SELU_ALPHA, "use_dst": False, "scale": S.SELU_SCALE},
     [(0.0, 1.0, f32(np.float32(S.SELU_ALPHA) * np.float32(S.SELU_SCALE))), (1.0, 1.0, f32(S.SELU_SCALE))]),
    ("soft_plus_backward", {}, [(0.0, 2.0, 1.0), (math.inf, 3.0, 3.0), (-math.inf, 3.0, 0.0), (100.0, 3.0, 3.0),
                                (-1.0, 1.0, f32(1 / (1 + math.e))), (1.0, 1.0, f32(1 / (1 + math.exp(-1)))),
                                (-50.0, 1.0, f32(math.exp(-50) / (1 + math.exp(-50)))),
                                (math.nan, 1.0, math.nan), (1.0, math.nan, math.nan)]),
    ("soft_plus_backward", {"beta": 1.0, "threshold": 2.0},
     [(2.0, 1.0, f32(1 / (1 + math.exp(-2)))), (above(2.0), 1.0, 1.0), (3.0, -4.0, -4.0)]),
    ("soft_plus_backward", {"beta": 0.0}, [(5.0, 2.0, 1.0), (-1e30, 2.0, 1.0), (0.0, -3.0, -1.5)]),
    ("soft_plus_backward", {"beta": -1.0, "threshold": 5.0},
     [(-5.0, 1.0, f32(1 / (1 + math.exp(-5)))), (-6.0, 7.0, 7.0), (2.0, 1.0, f32(1 / (1 + math.exp(2)))),
      (math.inf, 1.0, 0.0)]),
]


@pytest.mark.parametrize("op,attrs,cases", [pytest.param(*h, id=f"{h[0]}-{S.case_id(h[1])}") for h in HAND])
def test_hand_computed_f32(op, attrs, cases):
    x = torch.tensor([c[0] for c in cases], dtype=torch.float32)
    g = torch.tensor([c[1] for c in cases], dtype=torch.float32)
    want = torch.tensor([c[2] for c in cases], dtype=torch.float32)
    got = H.call(op, x, g, **attrs)
    tol = R.ULP_TARGET[torch.float32] if R.is_transcendental(op, H.full_attrs(op, attrs)) else 0
    d = R.ulp_distance(got, want)
    assert (d <= tol).all(), R.describe_mismatch(got, want, {"x": x, "g": g}, mask=d > tol)


@pytest.mark.parametrize("dtype", [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.LOW])
def test_hand_computed_low_precision(dtype):
    """f32 compute, one rounding at the end; bounds compared in f32 (not rounded to the dtype)."""
    one = torch.ones(1, dtype=dtype)
    # hardsigmoid: grad*float(1/6) rounded once (bf16: 0.1669921875, f16: 0.1666259765625)
    sixth = {torch.bfloat16: 0.1669921875, torch.float16: 0.1666259765625}[dtype]
    assert H.call("hardsigmoid_backward", torch.zeros(1, dtype=dtype), one).item() == sixth
    # grad 3 * f32(1/6) = 0.50000001: rounds to 0.5 in both
    assert H.call("hardsigmoid_backward", torch.zeros(1, dtype=dtype), 3 * one).item() == 0.5
    # hardtanh with max_val=0.7: dtype(0.7) is below 0.7 (bf16 0.69921875, f16 0.7001953125 is above)
    x07 = torch.tensor([0.7], dtype=dtype)
    want = 1.0 if x07.item() < 0.7 else 0.0
    assert H.call("hardtanh_grad", x07, one, min_val=-0.7, max_val=0.7).item() == want
    # elu dst: (g*1)*(x + 1) with x = -0.5 and g = 1 + ulp: exact in f32, rounded once
    g = torch.nextafter(one, 2 * one)
    got = H.call("elu_backward", torch.tensor([-0.5], dtype=dtype), g, alpha=1.0, use_dst=True)
    assert got.item() == torch.tensor(g.item() * 0.5, dtype=dtype).item()
    # (1+ulp)*1.5 = 1.5 + 1.5ulp is an exact tie in the dtype: round half to even gives 1.5 + 2ulp
    got = H.call("elu_backward", torch.zeros(1, dtype=dtype), g, alpha=1.5, use_dst=True)
    want = R.round_f32(np.array([np.float32(g.item()) * np.float32(1.5)], np.float32), dtype)
    assert got.item() == want.item() == 1.5 + 2 * (g.item() - 1.0)


# ------------------------------------------------------------------------------------------------ exp(c*x) arguments
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("coef", [0.3, -2.9, 8e-34, -5e-35, math.pi * 1e-36, 1e-40])
@pytest.mark.parametrize("op", ["soft_plus_backward", "elu_backward"])
def test_exp_argument_is_not_rounded(op, coef, dtype):
    """Within the contract (4 ulp f32, 1 ulp bf16) wherever c*x (beta*x, x*input_scale) lies in exp's range,
    including the products f32 rounds and, for a tiny c, |x| up to the f32 limit (where x*4097 of the product's
    split would overflow; bf16 x needs no split)."""
    if op == "elu_backward" and coef < 0:
        coef = -coef  # x <= 0 is ELU's exp branch: a positive input_scale keeps c*x <= 0
    top = min(3.3e38, 87.0 / abs(coef))
    mags = np.exp(np.random.default_rng(7).uniform(math.log(top * 1e-6), math.log(top), 50_000))
    x = torch.from_numpy((-mags).astype(np.float32)).to(dtype)
    g = torch.from_numpy(np.random.default_rng(8).normal(0, 1, x.numel()).astype(np.float32)).to(dtype)
    attrs = {"beta": coef} if op == "soft_plus_backward" else {"alpha": 1.0, "use_dst": False, "input_scale": coef}
    got = H.call(op, x, g, **attrs)
    want = R.round_f64(R.reference_f64(op, x.double().numpy(), g.double().numpy(), **attrs), dtype)
    target, _, _ = R.transcendental_regions(op, x.float().numpy(), g.float().numpy(), **attrs)
    assert target.sum() > 40_000
    d = R.ulp_distance(got, want)
    limit = 4 if dtype == torch.float32 else 1
    assert d[target].max() <= limit, R.describe_mismatch(got, want, {"saved": x, "grad": g}, mask=target & (d > limit))
