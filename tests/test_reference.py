"""Unit tests of tests/reference.py itself: helpers, and the references against PyTorch 2.13 CPU (no actgrad)."""
import math

import numpy as np
import pytest
import torch

import reference as R

LOW = (torch.float16, torch.bfloat16)
ALL = (torch.float32, torch.float16, torch.bfloat16)


# ------------------------------------------------------------------------------------------------ helpers
@pytest.mark.parametrize("dtype", LOW)
def test_all_values_are_every_bit_pattern(dtype):
    v = R.all_values(dtype)
    assert v.dtype == dtype and v.numel() == 65536
    bits = v.view(torch.int16).to(torch.int32) & 0xFFFF
    assert torch.equal(torch.sort(bits).values, torch.arange(65536, dtype=torch.int32))
    nans = int(torch.isnan(v).sum())
    assert nans == (2046 if dtype == torch.float16 else 254)
    assert int(torch.isinf(v).sum()) == 2
    assert R.finite_values(dtype).numel() == 65536 - nans - 2


@pytest.mark.parametrize("dtype", LOW)
def test_round_f64_avoids_double_rounding(dtype):
    ulp1 = 2.0 ** -7 if dtype == torch.bfloat16 else 2.0 ** -10
    x = np.array([1 + ulp1 / 2 + 2.0 ** -40, 1 + ulp1 / 2, 1 + 3 * ulp1 / 2, 1 + ulp1 / 2 - 2.0 ** -40,
                  -(1 + ulp1 / 2 + 2.0 ** -40)])
    got = R.exact(R.round_f64(x, dtype))
    # torch itself double-rounds here (f64 -> f32 -> dtype): the reason round_f64 exists
    assert torch.tensor(x[0], dtype=torch.float64).to(dtype).item() == 1.0
    assert list(got) == [1 + ulp1, 1.0, 1 + 2 * ulp1, 1.0, -(1 + ulp1)]


@pytest.mark.parametrize("dtype", LOW)
def test_round_f64_is_nearest_even(dtype):
    rng = np.random.default_rng(1)
    fin = R.exact(R.finite_values(dtype))
    fin = np.unique(fin)  # sorted, +-0 merged
    # random doubles between neighbours, plus exact midpoints, plus values beyond the largest finite
    i = rng.integers(0, fin.size - 1, 20000)
    lo, hi = fin[i], fin[i + 1]
    t = rng.random(20000)
    x = np.concatenate([lo + (hi - lo) * t, (lo + hi) / 2, [fin[-1] * 1.01, -fin[-1] * 1.01, 1e-300, -1e-300,
                                                            np.inf, -np.inf, np.nan, 0.0]])
    got = R.exact(R.round_f64(x, dtype))
    # brute force nearest with ties to even
    j = np.clip(np.searchsorted(fin, x), 1, fin.size - 1)
    a, b = fin[j - 1], fin[j]
    da, db = np.abs(x - a), np.abs(b - x)
    bits = R.ordered_int(torch.from_numpy(np.stack([a, b])).to(dtype))
    a_even = (np.abs(bits[0]) % 2) == 0
    want = np.where(da < db, a, np.where(db < da, b, np.where(a_even, a, b)))
    finite_x = np.isfinite(x) & (np.abs(x) <= fin[-1])
    np.testing.assert_array_equal(got[finite_x], want[finite_x])
    big = np.abs(x) > fin[-1] * 1.005
    assert np.all(np.isinf(got[big]) & (np.sign(got[big]) == np.sign(x[big])))
    assert np.isnan(got[np.isnan(x)]).all()


def test_round_f64_to_f32_and_f32_cast():
    x = np.array([1 + 2.0 ** -24, 1 + 2.0 ** -24 + 2.0 ** -40, 1e39, -1e39, 1e-46, np.nan])
    got = R.round_f64(x, "float32").numpy()
    assert got[0] == 1.0 and got[1] == np.nextafter(np.float32(1), np.float32(2))
    assert got[2] == np.inf and got[3] == -np.inf and got[4] == 0.0 and np.isnan(got[5])
    r = R.round_f32(np.array([1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, np.inf, np.nan], np.float32), torch.bfloat16)
    assert R.exact(r)[:3].tolist() == [1.0, 1 + 2 * 2.0 ** -7, np.inf] and math.isnan(R.exact(r)[3])


@pytest.mark.parametrize("dtype", ALL)
def test_ulp_distance(dtype):
    one = torch.tensor([1.0], dtype=dtype)
    inf = torch.tensor([math.inf], dtype=dtype)
    nxt = torch.nextafter(one, inf)
    tiny = torch.nextafter(torch.zeros(1, dtype=dtype), inf)  # smallest subnormal
    big = torch.nextafter(inf, torch.zeros(1, dtype=dtype))  # largest finite
    nan = torch.tensor([math.nan], dtype=dtype)
    got = np.concatenate([R.ulp_distance(a, b) for a, b in [
        (one, one), (one, nxt), (nxt, one), (torch.tensor([0.0], dtype=dtype), torch.tensor([-0.0], dtype=dtype)),
        (tiny, -tiny), (tiny, torch.zeros(1, dtype=dtype)), (big, inf), (-big, -inf), (nan, nan), (nan, one),
        (one, -one)]])
    n_below_one = int(R.ordered_int(one)[0])
    assert got[:-2].tolist() == [0, 1, 1, 0, 2, 1, 1, 1, 0]
    assert got[-2] == R.NAN_MISMATCH and got[-1] == 2 * n_below_one


# ------------------------------------------------------------------------------------------------ references vs PyTorch
def _sample(dtype, n=40000, seed=0, scale=8.0):
    """Finite saved values (all finite bit patterns for f16/bf16, a random spread for f32) and random grads."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.float32:
        x = torch.cat([torch.randn(n, generator=g) * scale, torch.randn(n, generator=g) * 100,
                       R.finite_values(torch.float16).float(), R.finite_values(torch.bfloat16).float()])
    else:
        x = R.finite_values(dtype)
    grad = (torch.randn(x.numel(), generator=g) * 3).to(dtype)
    return x.to(dtype), grad


def _exact_eq(got, want, x, grad):
    assert got.dtype == want.dtype
    ok = R.same_values(got, want)
    assert ok.all(), R.describe_mismatch(got, want, {"x": x, "grad": grad})


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (0.0, 6.0), (-0.7, 0.7), (-0.5, 0.5), (0.0, 0.0), (2.0, -2.0),
                                    (-3.3e38, 1e-40), (-math.inf, math.inf)])
def test_band_f32_matches_torch_hardtanh(dtype, bounds):
    x, grad = _sample(dtype)
    want = torch.ops.aten.hardtanh_backward(grad, x, *bounds)
    for op, attrs in (("hardtanh_grad", {"min_val": bounds[0], "max_val": bounds[1]}),
                      ("clamp_backward", {"min": bounds[0], "max": bounds[1]})):
        _exact_eq(R.expected(op, x, grad, **attrs), want, x, grad)
        # and the float64 formula gives the same (the band ops are exact)
        _exact_eq(R.round_f64(R.reference_f64(op, R.exact(x), R.exact(grad), **attrs), dtype), want, x, grad)


def test_band_bounds_round_to_float_like_torch():
    # f32(-0.7) = -0.699999988; a value equal to it is on the bound (excluded) though it is > -0.7 in double
    b = float(np.float32(-0.7))
    x = torch.tensor([b, float(np.nextafter(np.float32(b), np.float32(0)))], dtype=torch.float32)
    g = torch.ones(2)
    assert R.expected("hardtanh_grad", x, g, min_val=-0.7, max_val=0.7).tolist() == [0.0, 1.0]
    assert torch.ops.aten.hardtanh_backward(g, x, -0.7, 0.7).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("dtype", ALL)
def test_hardsigmoid_f32_matches_torch(dtype):
    x, grad = _sample(dtype)
    _exact_eq(R.expected("hardsigmoid_backward", x, grad), torch.ops.aten.hardsigmoid_backward(grad, x), x, grad)


def test_hardsigmoid_bounds_in_double():
    # defaults: exactly +-3, so 2.9999998 (f32) is inside, where oneDNN's f32 alpha*s+beta test says outside
    # (from the float32 alpha 0.16666667: +-2.99999991, no float32 between them and +-3)
    lo, hi = R.hardsigmoid_bounds(1 / 6, 0.5)
    assert -3.0 <= lo < np.nextafter(np.float32(-3), np.float32(0)) < np.nextafter(np.float32(3), np.float32(0)) < hi <= 3.0
    x = torch.tensor([3.0, float(np.nextafter(np.float32(3), np.float32(0))), -3.0,
                      float(np.nextafter(np.float32(-3), np.float32(0)))])
    got = R.expected("hardsigmoid_backward", x, torch.ones(4))
    assert got.tolist() == [0.0, float(np.float32(1 / 6)), 0.0, float(np.float32(1 / 6))]
    # negative alpha: the band is between the two bounds, the value is grad*alpha
    lo, hi = R.hardsigmoid_bounds(-0.25, 0.5)
    assert (lo, hi) == (-2.0, 2.0)
    got = R.expected("hardsigmoid_backward", torch.tensor([-2.0, -1.0, 1.9, 2.0]), torch.full((4,), 2.0),
                     alpha=-0.25, beta=0.5)
    assert got.tolist() == [0.0, -0.5, -0.5, 0.0]


ELU_ATTRS = [
    dict(alpha=1.0), dict(alpha=0.5), dict(alpha=0.0), dict(alpha=2.5, scale=1.0),
    dict(alpha=1.6732632423543772, scale=1.0507009873554805),  # selu
    dict(alpha=0.3, scale=0.7),  # f32(alpha)*f32(scale) != f32(alpha*scale)
    dict(alpha=1.7, input_scale=1 / 1.7),  # celu
    dict(alpha=0.8, scale=1.3, input_scale=0.6),
]


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("attrs", ELU_ATTRS, ids=lambda a: ",".join(f"{k}={v:.3g}" for k, v in a.items()))
def test_elu_dst_f32_matches_torch(dtype, attrs):
    x, grad = _sample(dtype)
    want = torch.ops.aten.elu_backward(grad, attrs["alpha"], attrs.get("scale", 1.0), attrs.get("input_scale", 1.0),
                                       True, x)
    _exact_eq(R.expected("elu_backward", x, grad, use_dst=True, **attrs), want, x, grad)


def test_elu_negcoef_is_an_f32_product():
    c, _, _ = R.elu_coefs_f32(0.3, 0.7, 1.0)
    assert c == np.float32(0.3) * np.float32(0.7) and c != np.float32(0.3 * 0.7)


def _close_ulps(got, want, max_ulp, mask=None):
    d = R.ulp_distance(got, want)
    if mask is not None:
        d = d[mask]
    return int(d.max()) if d.size else 0


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("attrs", [dict(alpha=1.0), dict(alpha=0.5), dict(alpha=-0.75),
                                   dict(alpha=1.6732632423543772, scale=1.0507009873554805)],
                         ids=lambda a: ",".join(f"{k}={v:.3g}" for k, v in a.items()))
def test_elu_src_f64_near_torch(dtype, attrs):
    x, grad = _sample(dtype)
    keep = (x.float() > -80)  # away from the f32 exp underflow
    x, grad = x[keep], grad[keep]
    want = torch.ops.aten.elu_backward(grad, attrs["alpha"], attrs.get("scale", 1.0), 1.0, False, x)
    got = R.expected("elu_backward", x, grad, use_dst=False, **attrs)
    assert _close_ulps(got, want, None) <= (4 if dtype == torch.float32 else 1)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("beta,threshold", [(1.0, 20.0), (2.0, 20.0), (-1.0, 20.0), (0.5, 5.0), (1.0, 3.0),
                                            (0.0, 20.0), (-2.0, -1.0)])
def test_softplus_f64_near_torch(dtype, beta, threshold):
    x, grad = _sample(dtype)
    keep = (x.float() * beta).abs() < 80  # torch forms exp(beta*x)/(exp(beta*x)+1): inf/inf beyond
    keep |= (x.float() * beta) > threshold
    x, grad = x[keep], grad[keep]
    want = torch.ops.aten.softplus_backward(grad, x, beta, threshold)
    got = R.expected("soft_plus_backward", x, grad, beta=beta, threshold=threshold)
    assert _close_ulps(got, want, None) <= (8 if dtype == torch.float32 else 1)


def test_softplus_threshold_decision_and_nan_policy():
    x = torch.tensor([20.0, float(np.nextafter(np.float32(20), np.float32(30))), -math.inf, math.inf, math.nan, 1.0])
    g = torch.tensor([2.0, 2.0, 2.0, 2.0, 2.0, math.nan])
    got = R.expected("soft_plus_backward", x, g, beta=1.0, threshold=20.0)
    s20 = 2.0 / (1.0 + math.exp(-20.0))
    assert got[0].item() == float(np.float32(s20)) and got[1].item() == 2.0
    assert got[2].item() == 0.0 and got[3].item() == 2.0
    assert math.isnan(got[4].item()) and math.isnan(got[5].item())


@pytest.mark.parametrize("op", R.ELEMENTWISE_OP_NAMES)
def test_nan_policy_every_op(op):
    x = torch.tensor([math.nan, 0.5, math.nan, 5.0, -5.0])
    g = torch.tensor([1.0, math.nan, math.nan, math.nan, math.nan])
    for use_dst in (True, False):
        extra = {"use_dst": use_dst} if "use_dst" in R.DEFAULT_ATTRS[op] else {}
        got = R.expected(op, x, g, **extra)
        assert torch.isnan(got).all(), (op, got)


@pytest.mark.parametrize("op", ["hardtanh_grad", "clamp_backward", "hardsigmoid_backward"])
def test_inf_grad_outside_band_is_zero(op):
    x = torch.tensor([-5.0, 5.0, -math.inf, math.inf, 0.5])
    g = torch.tensor([math.inf, -math.inf, math.inf, math.inf, -math.inf])
    got = R.expected(op, x, g)
    assert got[:4].tolist() == [0.0] * 4 and got[4].item() == (-math.inf)


def test_transcendental_regions():
    x = np.array([-1.0, -90.0, -math.inf, 1.0, math.nan])
    g = np.ones(5)
    tgt, under, other = R.transcendental_regions("elu_backward", x, g, alpha=1.0, use_dst=False)
    assert tgt.tolist() == [True, False, False, True, False]
    assert under.tolist() == [False, True, False, False, False]
    assert other.tolist() == [False, False, True, False, True]
    # an f32 product x*0.3 that is inexact is in the target (the kernel undoes its rounding); -90*0.3 is no underflow
    tgt, under, other = R.transcendental_regions("elu_backward", x, g, alpha=1.0, use_dst=False, input_scale=0.3)
    assert tgt.tolist() == [True, True, False, True, False]
    tgt, under, other = R.transcendental_regions("soft_plus_backward", np.array([-100.0, 0.1, 3.0, -400.0]),
                                                 np.ones(4), beta=0.3)
    assert tgt.tolist() == [True, True, True, False] and under.tolist() == [False, False, False, True]
    assert R.is_transcendental("elu_backward", {"use_dst": False})
    assert not R.is_transcendental("elu_backward", {"use_dst": True})


def test_every_operator_has_one_record_that_fits_its_spec():
    """tests/refs: one OpRef per elementwise operator, in spec order, naming only the operator's attributes, with a
    value for each required one, a str attribute only among its choices, and a first sweep case of defaults (required
    aside); each row reduction has its float64 reference (ROW_F64)."""
    assert list(R.REFS) == [op.name for op in R.SPEC.ELEMENTWISE_OPS]
    assert list(R.ROW_F64) == [op.name for op in R.SPEC.ROW_REDUCTIONS] == list(R.ROW_OP_NAMES)
    assert set(R.OP_NAMES) == set(R.ELEMENTWISE_OP_NAMES) | set(R.ROW_OP_NAMES)
    for op in R.SPEC.ELEMENTWISE_OPS:
        ref = R.REFS[op.name]
        names = {a.name for a in op.attrs}
        assert set(ref.required) == {a.name for a in op.attrs if a.required}, op.name
        for attrs in (*ref.cases, ref.typical):
            assert set(attrs) <= names, (op.name, attrs)
            full = R.full(op.name, attrs)
            assert all(full[a.name] in a.choices for a in op.attrs if a.type == "str"), (op.name, attrs)
        assert R.full(op.name, ref.cases[0]) == R.full(op.name, {}), (op.name, ref.cases[0])
        assert ref.f32 is not None or ref.exact is None, f"{op.name}: an exact form needs its f32 steps"
        assert all(ref.ulp_f32(R.full(op.name, c)) in (4, 8) for c in ref.cases), op.name


def test_row_references_by_hand():
    """The float64 row formulas on values worked out by hand: softmax dst*(g - sum(g*dst)), log-softmax
    g - exp(dst)*sum(g), along the axis (a column for axis 0), a 0-dimensional tensor as one row of one element."""
    g = np.array([[1.0, 2.0], [4.0, -1.0]])
    d = np.array([[0.25, 0.75], [0.5, 0.5]])
    # g*d = [[0.25, 1.5], [2, -0.5]]: row sums [1.75, 1.5], column sums [2.25, 1]
    assert R.softmax_backward_f64(g, d, 1).tolist() == [[0.25 * (1 - 1.75), 0.75 * (2 - 1.75)],
                                                        [0.5 * (4 - 1.5), 0.5 * (-1 - 1.5)]]
    assert R.softmax_backward_f64(g, d, -2).tolist() == [[0.25 * (1 - 2.25), 0.75 * (2 - 1.0)],
                                                         [0.5 * (4 - 2.25), 0.5 * (-1 - 1.0)]]
    # row sums of g: [3, 3]
    assert np.allclose(R.log_softmax_backward_f64(g, np.log(d), 1), [[1 - 0.25 * 3, 2 - 0.75 * 3],
                                                                     [4 - 0.5 * 3, -1 - 0.5 * 3]], rtol=1e-15, atol=0)
    assert R.softmax_backward_f64(np.float64(0.75), np.float64(0.5), 0) == 0.5 * (0.75 - 0.375)
    assert R.log_softmax_backward_f64(np.float64(0.75), np.float64(0.0), -1) == 0.0


@pytest.mark.parametrize("op", R.ROW_OP_NAMES)
def test_row_nan_policy(op):
    """NaN in either input anywhere in a row makes that row NaN, and only that row (axis 0: a column)."""
    ref = R.ROW_F64[op]
    for axis in (0, 1):
        for which in (0, 1):
            g, d = np.full((3, 4), 0.5), np.full((3, 4), -0.5)
            (g, d)[which][1, 2] = math.nan
            nan = np.isnan(ref(g, d, axis))
            row = np.zeros((3, 4), dtype=bool)
            row[(slice(None), 2) if axis == 0 else (1, slice(None))] = True
            assert (nan == row).all(), (axis, which)
    g, d = np.ones((2, 3)), np.log(np.full((2, 3), 1 / 3))
    d[0, 1] = -math.inf  # a masked class of log-softmax (softmax: dst 0): no NaN
    assert not np.isnan(R.log_softmax_backward_f64(g, d, 1)).any()
