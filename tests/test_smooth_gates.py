"""What the generic tests cannot know of the smooth gates (GELU, FastGelu, Mish): the drop-ins against ATen and
ATen's refusals, the boundary values of the forms, and the accuracy the erf form holds in the tail."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import harness as H
import reference as R
from refs import smooth_gates as SG

DTYPES = [pytest.param(d, id=H.DTYPE_IDS[d]) for d in H.DTYPES]
# drop-in vs ATen: both within their accuracy of the exact value, so within the sum of the two (PyTorch's f32 GELU
# loses up to ~|x| ulp, its bf16/f16 results are one rounding of that); absolutely 1e-6*|grad| each where the
# contract allows it (the derivative's terms cancel, GELU below -4)
RTOL = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def _assert_close(got, want, g):
    assert got.dtype == want.dtype and got.shape == want.shape
    gv, wv, gg = R.exact(got), R.exact(want), R.exact(g)
    # and a rounding of each at the bottom of the dtype's subnormals
    smallest = float(torch.nextafter(torch.zeros((), dtype=got.dtype), torch.ones((), dtype=got.dtype)))
    bound = RTOL[got.dtype] * np.abs(wv) + 2e-6 * np.abs(gg) + 2 * smallest
    bad = np.abs(gv - wv) > bound
    assert not bad.any(), list(zip(gv[bad][:5], wv[bad][:5]))


def _finite_inputs(dtype, n=20000, seed=0):
    gen = torch.Generator().manual_seed(seed)
    x = torch.cat([torch.randn(n, generator=gen) * 3, torch.linspace(-12, 12, 4001)]).to(dtype)
    g = (torch.randn(x.numel(), generator=gen) * 2).to(dtype)
    return x, g


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward_drop_in_matches_aten(dtype, approximate):
    import actgrad.aten as A
    x, g = _finite_inputs(dtype)
    got = A.gelu_backward(g, x, approximate=approximate)
    want = torch.ops.aten.gelu_backward(g, x, approximate=approximate)
    _assert_close(got, want, g)
    assert torch.equal(A.gelu_backward(g, x), A.gelu_backward(g, x, approximate="none"))
    assert torch.equal(A.gelu_backward(g, x, approximate=approximate.encode()), got)  # bytes, as ATen takes them


@pytest.mark.parametrize("dtype", DTYPES)
def test_mish_backward_drop_in_matches_aten(dtype):
    import actgrad.aten as A
    x, g = _finite_inputs(dtype)
    got = A.mish_backward(g, x)
    want = torch.ops.aten.mish_backward(g, x)
    _assert_close(got, want, g)


@pytest.mark.parametrize("approximate", ["foo", "Tanh", "none ", "", "gelu_erf", None, 1, b"foo"])
def test_gelu_backward_drop_in_refuses_what_aten_refuses(approximate):
    import actgrad.aten as A
    g, x = torch.ones(3), torch.ones(3)
    with pytest.raises(RuntimeError) as aten_error:
        torch.ops.aten.gelu_backward(g, x, approximate=approximate)
    with pytest.raises(RuntimeError) as ours:
        A.gelu_backward(g, x, approximate=approximate)
    if isinstance(approximate, (str, bytes)):
        assert str(ours.value) == str(aten_error.value)
    else:
        assert "approximate" in str(ours.value)


def test_gelu_backward_op_refuses_unknown_form_naming_it():
    import actgrad
    with pytest.raises(ValueError, match="approximate"):
        actgrad.gelu_backward(torch.ones(3), torch.ones(3), "gelu_erf")


def _call(op, x, g, **attrs):
    return H.call(op, torch.tensor(x, dtype=torch.float32), torch.tensor(g, dtype=torch.float32), **attrs)


FORMS = [("gelu_backward", {"approximate": "none"}), ("gelu_backward", {"approximate": "tanh"}),
         ("fast_gelu_grad", {}), ("mish_backward", {})]


@pytest.mark.parametrize("op,attrs", FORMS, ids=["gelu", "gelu_tanh", "fast_gelu", "mish"])
def test_limits_at_infinite_saved_values(op, attrs):
    # d(+inf) = 1, d(-inf) = 0; an infinite grad on the vanishing side gives 0 (select semantics), NaN stays NaN
    x = [math.inf, math.inf, -math.inf, -math.inf, -math.inf, math.inf]
    g = [2.5, -math.inf, 2.5, math.inf, math.nan, math.nan]
    got = _call(op, x, g, **attrs).tolist()
    assert got[:4] == [2.5, -math.inf, 0.0, 0.0]
    assert math.isnan(got[4]) and math.isnan(got[5])


@pytest.mark.parametrize("op,attrs", FORMS, ids=["gelu", "gelu_tanh", "fast_gelu", "mish"])
def test_values_at_zero_and_nan(op, attrs):
    d0 = {"gelu_backward": 0.5, "fast_gelu_grad": 0.5, "mish_backward": 0.6}[op]
    got = _call(op, [0.0, -0.0, math.nan, 1.0], [2.0, 2.0, 1.0, math.nan], **attrs).tolist()
    assert got[0] == got[1] == pytest.approx(2 * d0, rel=1e-6)
    assert math.isnan(got[2]) and math.isnan(got[3])


@pytest.mark.parametrize("op,attrs,cut", [("gelu_backward", {"approximate": "none"}, -14.0),
                                           ("gelu_backward", {"approximate": "tanh"}, -10.0),
                                           ("fast_gelu_grad", {}, -60.0), ("mish_backward", {}, -103.0)],
                         ids=["gelu", "gelu_tanh", "fast_gelu", "mish"])
def test_infinite_grad_where_exp_underflows(op, attrs, cut):
    # below the cut the f32 exp factor is 0 for some x and the result 0 for an infinite grad; above it inf*d
    xs = np.float32(cut) - np.arange(0, 200, dtype=np.float32) * np.float32(0.25)
    got = _call(op, xs.tolist(), [math.inf] * xs.size, **attrs).numpy()
    want = R.round_f64(R.REFS[op].f64(xs.astype(np.float64), np.full(xs.size, math.inf), **H.full_attrs(op, attrs)),
                       torch.float32).numpy()
    assert ((got == 0) | (got == want)).all()
    assert (got[-20:] == 0).all() and (want[-20:] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_gelu_erf_tail_keeps_the_ulp_target(dtype):
    # the divergence the spec states: below -4, where PyTorch's and oneDNN's 1 + erf cancel, the erf form stays within
    # the ulp target of the exact value (the contract asks only 1e-6*|grad| there), down to exp's f32 underflow
    lo = -13.0 if dtype == torch.float32 else -9.0  # f16: the results leave the f16 range below -9
    x = torch.linspace(lo, -4.0, 20001, dtype=torch.float64).to(dtype)
    g = torch.ones_like(x)
    got = H.call("gelu_backward", x, g, approximate="none")
    want = R.round_f64(SG.gelu_backward_f64(R.exact(x), R.exact(g)), dtype)
    target = R.ulp_target("gelu_backward", {"approximate": "none"}, dtype)
    assert R.ulp_distance(got, want).max() <= target
    if dtype != torch.float16:  # f16 rounds PyTorch's f32 error away; f32 and bf16 show what the divergence is about
        # how far PyTorch's bf16 result lands depends on its f32 erf near -1 on the CPU at hand (8 ulp on one AMD EPYC,
        # hundreds on another); it misses the target either way
        miss = 100 if dtype == torch.float32 else target
        assert R.ulp_distance(torch.ops.aten.gelu_backward(g, x), want).max() > miss


def test_mish_passes_grad_through_above_sixteen():
    # above 16 the kernel selects the gradient itself (the f32 derivative is 1 there), subnormal and infinite ones too
    x = torch.tensor([16.000002, 16.5, 30.0, 100.0, 1e30, math.inf], dtype=torch.float32)
    g = torch.tensor([3.0, -7.0, 1e-40, 2.0, math.inf, -1e-45])
    assert torch.equal(H.call("mish_backward", x, g), g)


def test_gelu_tanh_f32_keeps_the_ulp_target_where_the_rounded_argument_would_not():
    # on [-4, 0) the rounding of the f32 argument 2u would be that relative error of the result, up to about
    # 2*2**-24*|2u| (23 ulp near -3.9, where the kernel evaluated 2u in plain f32); the kernel carries it and keeps
    # the contract's 8 ulp (7 measured), away from the derivative's zero where the absolute bound applies
    gen = torch.Generator().manual_seed(3)
    x = torch.cat([torch.rand(400_000, generator=gen) * -4.0, torch.linspace(-4.0, 0.0, 100_001)])
    g = torch.ones_like(x)
    got = H.call("gelu_backward", x, g, approximate="tanh")
    x64 = R.exact(x)
    ref = SG.gelu_backward_f64(x64, np.ones_like(x64), approximate="tanh")
    first, second, _ = SG._gelu_terms(x64, "tanh")
    cancels = SG._cancel_bound(np.maximum(np.abs(first), np.abs(second)), first + second, np.ones_like(x64)) > 0
    ulps = R.ulp_distance(got, R.round_f64(ref, torch.float32))
    assert ulps[~cancels].max() <= R.ulp_target("gelu_backward", {"approximate": "tanh"}, torch.float32) == 8
