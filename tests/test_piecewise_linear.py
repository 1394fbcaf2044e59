"""The piecewise-linear rectifiers, shrinks and Abs beyond the generic tests: the actgrad.aten drop-ins against
torch.ops.aten (values over every finite f16/bf16 value and random f32, and the refusals), and the boundary values
the contract fixes for each operator, written out by hand."""
from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
import torch

import harness as H
import reference as R
from test_interfaces import LAYOUTS, SCALAR_KINDS, _layout_inputs, _outcome

actgrad = H.ag()
aten = torch.ops.aten
INF, NAN = math.inf, math.nan
DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def _finite_sweep(dtype, n_random=200_000, seed=7):
    """(saved, grad): every finite value of dtype (f32: every finite f16 and bf16 value and random normals) as the
    saved value against a few gradients, and as the gradient against saved values around the bounds."""
    if dtype == torch.float32:
        gen = torch.Generator().manual_seed(seed)
        values = torch.cat([R.finite_values(torch.float16).float(), R.finite_values(torch.bfloat16).float(),
                            torch.randn(n_random, generator=gen) * 4])
    else:
        values = R.finite_values(dtype)
    grads = torch.tensor([1.0, -2.5, 1e-3, 3e4], dtype=dtype)
    around = torch.tensor([-5.0, -3.0, -1.5, -0.5, -0.0, 0.0, 0.5, 0.7, 2.75, 3.0, 30.0], dtype=dtype)
    saved = torch.cat([values.repeat(grads.numel()), around.repeat_interleave(values.numel())])
    grad = torch.cat([grads.repeat_interleave(values.numel()), values.repeat(around.numel())])
    return saved.contiguous(), grad.contiguous()


# drop-in -> its arguments after (grad, saved): ATen's values for each; lambd and thresholds that every dtype holds
# exactly (PyTorch rounds lambd to the tensor's dtype, actgrad takes the float32 value: a documented divergence)
DROP_INS = {
    "threshold_backward": [(0.0,), (0.5,), (-1.5,), (0.7,)],
    "leaky_relu_backward": [(0.01, False), (0.0, False), (-0.3, False), (0.2, True)],
    "hardswish_backward": [()],
    "softshrink_backward": [(0.5,), (0.0,), (-0.5,)],
    "hardshrink_backward": [(0.5,), (0.0,), (-0.5,)],
}
DROP_IN_CASES = [(name, args) for name, cases in DROP_INS.items() for args in cases]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name,args", DROP_IN_CASES, ids=[f"{n}{a}" for n, a in DROP_IN_CASES])
def test_drop_in_equals_aten_on_finite_inputs(name, args, dtype):
    saved, grad = _finite_sweep(dtype)
    got = getattr(actgrad.aten, name)(grad, saved, *args)
    want = getattr(aten, name)(grad, saved, *args)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert H.bits_equal(got, want) or R.same_values(got, want).all(), \
        R.describe_mismatch(got, want, {"saved": saved, "grad": grad})


def test_threshold_in_float32_where_aten_agrees():
    # a threshold bf16 cannot hold: both compare the bf16 value with the float 0.7 (0.69921875 passes)
    saved = torch.tensor([0.69921875, 0.703125], dtype=torch.bfloat16)
    grad = torch.ones_like(saved)
    got = actgrad.aten.threshold_backward(grad, saved, 0.7)
    assert got.tolist() == aten.threshold_backward(grad, saved, 0.7).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("name", ["softshrink_backward", "hardshrink_backward"])
def test_shrink_lambd_is_float32_not_the_tensors_dtype(name):
    # the documented divergence: PyTorch rounds lambd 0.3 to bf16 (0.30078125), so its band keeps +-0.30078125
    saved = torch.tensor([-0.30078125, 0.30078125, 0.298828125, 0.302734375], dtype=torch.bfloat16)
    grad = torch.ones_like(saved)
    assert getattr(actgrad.aten, name)(grad, saved, 0.3).tolist() == [1.0, 1.0, 0.0, 1.0]
    assert getattr(aten, name)(grad, saved, 0.3).tolist() == [0.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_drop_ins_keep_the_layout_aten_gives(layout):
    # threshold_backward and leaky_relu_backward iterate (self, grad), the others (grad, self): ATen's strides either way
    saved, grad = _layout_inputs(layout)
    for name, cases in DROP_INS.items():
        got, want = getattr(actgrad.aten, name)(grad, saved, *cases[0]), getattr(aten, name)(grad, saved, *cases[0])
        assert got.stride() == want.stride(), name
        assert torch.equal(got, want), name


def test_drop_ins_have_atens_signatures():
    for name in DROP_INS:
        schema = [a.name for a in getattr(aten, name).default._schema.arguments]
        assert list(inspect.signature(getattr(actgrad.aten, name)).parameters) == schema, name


# --- refusals: the scalar arguments take what torch.ops.aten takes, and the in-place leaky check

SCALARS = [("threshold_backward", 2), ("leaky_relu_backward", 2), ("leaky_relu_backward", 3),
           ("softshrink_backward", 2), ("hardshrink_backward", 2)]


def _args(name: str, position: int, value, grad, saved) -> list:
    args = [grad, saved, *DROP_INS[name][0]]
    args[position] = value
    return args


@pytest.mark.parametrize("kind", list(SCALAR_KINDS))
@pytest.mark.parametrize("name,position", SCALARS)
def test_drop_ins_accept_and_refuse_scalars_as_aten_does(name, position, kind):
    gen = torch.Generator().manual_seed(3)
    saved, grad = torch.randn(300, generator=gen) * 3, torch.randn(300, generator=gen)
    arg = getattr(aten, name).default._schema.arguments[position].name
    args = _args(name, position, SCALAR_KINDS[kind], grad, saved)
    want, aten_error = _outcome(getattr(aten, name), args)
    got, our_error = _outcome(getattr(actgrad.aten, name), args)
    if aten_error is not None:
        assert our_error is not None, f"aten.{name} refuses {arg}={SCALAR_KINDS[kind]!r}, actgrad.aten accepts it"
        assert type(our_error) is type(aten_error), (our_error, aten_error)
        assert f"actgrad.aten.{name}: {arg}" in str(our_error), str(our_error)
        return
    assert our_error is None, f"aten.{name} accepts {arg}={SCALAR_KINDS[kind]!r}: {our_error!r}"
    if math.isfinite(float(got.abs().max())) and float(want.abs().max()) < 1e30:
        torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("slope", [-0.1, -1, -1e-30, -INF])
def test_leaky_self_is_result_with_a_negative_slope_is_refused_as_aten_does(slope):
    saved, grad = torch.randn(8), torch.randn(8)
    _, aten_error = _outcome(aten.leaky_relu_backward, [grad, saved, slope, True])
    _, our_error = _outcome(actgrad.aten.leaky_relu_backward, [grad, saved, slope, True])
    assert aten_error is not None and type(our_error) is type(aten_error)
    assert str(our_error) == str(aten_error)
    # the same slope on the forward input is accepted by both
    assert _outcome(actgrad.aten.leaky_relu_backward, [grad, saved, slope, False])[1] is None


def test_leaky_self_is_result_accepts_zero_slopes():
    saved, grad = torch.randn(64), torch.randn(64)
    for slope in (0.0, -0.0, 0):
        assert torch.equal(actgrad.aten.leaky_relu_backward(grad, saved, slope, True),
                           aten.leaky_relu_backward(grad, saved, slope, True))


# --- boundary and special values, by hand: (saved, grad, expected) per operator and attributes

def _cases(rows):
    return [(x, g, want) for x, g, want in rows]


SPECIAL = {
    ("relu_backward", ()): _cases([
        (0.0, 2.0, 0.0), (-0.0, 2.0, 0.0), (1e-45, 2.0, 2.0), (-1e-45, 2.0, 0.0), (INF, 2.0, 2.0), (-INF, 2.0, 0.0),
        (-1.0, INF, 0.0), (0.0, -INF, 0.0), (1.0, INF, INF), (-1.0, NAN, NAN), (NAN, 2.0, NAN), (NAN, 0.0, NAN)]),
    ("threshold_grad_v2_d", (0.5,)): _cases([
        (0.5, 2.0, 0.0), (0.50000006, 2.0, 2.0), (0.49999997, 2.0, 0.0), (INF, 2.0, 2.0), (-INF, 2.0, 0.0),
        (0.5, INF, 0.0), (0.0, NAN, NAN), (NAN, 1.0, NAN)]),
    ("threshold_grad_v2_d", (INF,)): _cases([(INF, 2.0, 0.0), (3e38, 2.0, 0.0), (NAN, 2.0, NAN), (1.0, NAN, NAN)]),
    ("threshold_grad_v2_d", (-INF,)): _cases([(-INF, 2.0, 0.0), (-3e38, 2.0, 2.0), (-INF, INF, 0.0)]),
    ("leaky_relu_grad", (0.25,)): _cases([
        (0.0, 2.0, 0.5), (-0.0, 2.0, 0.5), (1e-45, 2.0, 2.0), (-INF, 2.0, 0.5), (INF, 2.0, 2.0),
        (-1.0, INF, INF), (-1.0, -INF, -INF), (NAN, 2.0, NAN), (-1.0, NAN, NAN)]),
    ("leaky_relu_grad", (0.0,)): _cases([(-1.0, INF, 0.0), (0.0, -INF, 0.0), (-1.0, NAN, NAN), (NAN, 1.0, NAN)]),
    ("leaky_relu_grad", (0.1,)): _cases([(-1.0, 3.0, float(np.float32(3.0) * np.float32(0.1)))]),
    ("leaky_relu_grad", (1.0,)): _cases([(-1.0, 3.0, 3.0), (NAN, 3.0, NAN), (-INF, INF, INF)]),
    ("hard_swish_backward", ()): _cases([
        (-3.0, 2.0, 0.0), (-2.9999998, 3.0, float(np.float32(3) * (np.float32(-2.9999998) / np.float32(3) +
                                                                    np.float32(0.5)))),
        (3.0, 2.0, 2.0), (2.9999998, 1.0, float(np.float32(2.9999998) / np.float32(3) + np.float32(0.5))),
        (0.0, 2.0, 1.0), (-1.5, 2.0, 0.0), (-1.5, INF, 0.0), (-1.5, -INF, 0.0), (-3.0, INF, 0.0),
        (-INF, 2.0, 0.0), (INF, 2.0, 2.0), (-1.0, INF, INF), (NAN, 2.0, NAN), (-5.0, NAN, NAN), (-1.5, NAN, NAN)]),
    ("soft_shrink_grad", (0.5,)): _cases([
        (0.5, 2.0, 0.0), (-0.5, 2.0, 0.0), (0.50000006, 2.0, 2.0), (-0.50000006, 2.0, 2.0), (0.0, INF, 0.0),
        (0.5, NAN, NAN), (INF, 2.0, 2.0), (-INF, 2.0, 2.0), (NAN, 2.0, NAN)]),
    ("soft_shrink_grad", (-0.5,)): _cases([(0.0, 2.0, 2.0), (0.5, 2.0, 2.0), (-0.5, 2.0, 2.0), (NAN, 2.0, NAN)]),
    ("soft_shrink_grad", (-0.0,)): _cases([(0.0, 2.0, 0.0), (-0.0, INF, 0.0), (1e-45, 2.0, 2.0)]),
    ("hard_shrink_grad", (INF,)): _cases([(INF, 2.0, 0.0), (-INF, 2.0, 0.0), (1.0, INF, 0.0), (1.0, NAN, NAN)]),
    ("hard_shrink_grad", (0.0,)): _cases([(0.0, 2.0, 0.0), (-0.0, 2.0, 0.0), (1e-45, 2.0, 2.0), (-1e-45, 2.0, 2.0)]),
    ("abs_backward", ()): _cases([
        (0.0, 2.0, 0.0), (-0.0, 2.0, 0.0), (0.0, INF, 0.0), (-0.0, -INF, 0.0), (0.0, NAN, NAN), (1e-45, 2.0, 2.0),
        (-1e-45, 2.0, -2.0), (INF, 2.0, 2.0), (-INF, 2.0, -2.0), (-INF, INF, -INF), (NAN, 2.0, NAN),
        (NAN, 0.0, NAN), (-3.0, NAN, NAN)]),
}
SPECIAL_IDS = [f"{op}{attrs}" for op, attrs in SPECIAL]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op,attrs", list(SPECIAL), ids=SPECIAL_IDS)
def test_boundary_and_special_values(op, attrs, dtype):
    rows = SPECIAL[(op, attrs)]
    if dtype != torch.float32:  # the rows whose values the dtype holds
        def held(v):
            return math.isnan(v) or float(torch.tensor(v, dtype=dtype)) == v
        rows = [r for r in rows if all(held(v) for v in r)]
    x = torch.tensor([r[0] for r in rows], dtype=dtype)
    g = torch.tensor([r[1] for r in rows], dtype=dtype)
    want = torch.tensor([r[2] for r in rows], dtype=dtype)
    # a tile of typical values around them, so the lanes are not all alike
    gen = torch.Generator().manual_seed(11)
    pad = (torch.randn(1000, generator=gen) * 3).to(dtype)
    xs, gs = torch.cat([x, pad]), torch.cat([g, pad.flip(0)])
    got = getattr(actgrad, op)(*H.positional(op, xs, gs), *attrs)[: len(rows)]
    assert R.same_values(got, want).all(), R.describe_mismatch(got, want, {"x": x, "g": g})


def test_relu_use_dst_gives_the_same_values():
    gen = torch.Generator().manual_seed(5)
    x, g = torch.randn(4096, generator=gen), torch.randn(4096, generator=gen)
    assert torch.equal(actgrad.relu_backward(x.clamp_min(0), g, True), actgrad.relu_backward(x, g, False))


def test_hard_swish_divides_by_three():
    # x/3 rounds differently from x*0.33333334 for some x: the contract is PyTorch's true division
    x = torch.tensor([1.2911361455917358, -0.37447673082351685, 2.553579807281494, -2.5737836360931396])
    g = torch.ones_like(x)
    by_mul = x * torch.tensor(np.float32(1 / 3)) + 0.5
    by_div = x / 3 + 0.5
    assert (by_mul != by_div).all()  # each row tells the two apart
    assert torch.equal(actgrad.hard_swish_backward(x, g), by_div)
