"""What the generic tests cannot know about the sigmoid/tanh family, SiLU, LogSigmoid, Softsign and Sqrt: the drop-ins
of actgrad.aten against torch.ops.aten (values on finite inputs, what they refuse), the special values each
derivative takes at its boundaries, and the accuracy held where the record's single f32 target or the contract's
absolute bounds say less than the operator holds (the dst forms' 4 ulp, SiLU near its zero, exp underflow)."""
from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
import torch

import reference as R
from refs import sigmoid_family as SF

actgrad = pytest.importorskip("actgrad")
import actgrad.aten  # noqa: E402

ops = torch.ops.actgrad
aten = torch.ops.aten
INF, NAN = math.inf, math.nan
DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _random(n, scale, dtype, seed):
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(n, generator=gen) * scale).to(dtype)


# ---- drop-ins ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["sigmoid_backward", "tanh_backward", "silu_backward", "log_sigmoid_backward"])
def test_drop_ins_have_atens_signatures(name):
    schema = [a.name for a in getattr(aten, name).default._schema.arguments]
    assert list(inspect.signature(getattr(actgrad.aten, name)).parameters) == schema


def _aten_case(name, dtype, seed=0):
    """(actgrad.aten args, torch.ops.aten args) on finite inputs; the saved tensor as ATen's forward gives it."""
    x = _random(4099, 4.0, dtype, seed)
    g = _random(4099, 1.0, dtype, seed + 1)
    if name == "sigmoid_backward":
        args = (g, torch.sigmoid(x))
    elif name == "tanh_backward":
        args = (g, torch.tanh(x))
    elif name == "log_sigmoid_backward":
        args = (g, x, aten.log_sigmoid_forward(x)[1])
    else:
        args = (g, x)
    return args


# PyTorch's f16 sigmoid_backward rounds every step to f16 (op-semantics B 4.16), 1 - y*y of tanh_backward cancels near
# |y| = 1: an absolute tolerance of a few ulps of the gradient's scale covers both where the results differ
TOLERANCE = {torch.float32: (1e-6, 1e-6), torch.bfloat16: (0.0, 8e-3), torch.float16: (2e-3, 1e-3)}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("name", ["sigmoid_backward", "tanh_backward", "silu_backward", "log_sigmoid_backward"])
def test_drop_ins_equal_aten_on_finite_inputs(name, dtype):
    args = _aten_case(name, dtype)
    got = getattr(actgrad.aten, name)(*args)
    want = getattr(aten, name)(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    atol, rtol = TOLERANCE[dtype]
    torch.testing.assert_close(got.float(), want.float(), atol=atol, rtol=rtol)
    if dtype == torch.bfloat16:  # ATen upcasts bf16 and rounds once too: at most one ulp apart
        assert R.ulp_distance(got, want).max() <= 1


@pytest.mark.parametrize("layout", ["channels_last", "grad_expanded_saved_permuted", "grad_permuted_saved_other_permutation"])
@pytest.mark.parametrize("name", ["sigmoid_backward", "tanh_backward", "silu_backward", "log_sigmoid_backward"])
def test_drop_ins_keep_the_layout_aten_gives(name, layout):
    # log_sigmoid_backward allocates empty_like(grad_output), the others follow TensorIterator on (grad, saved)
    from test_interfaces import _layout_inputs  # noqa: PLC0415
    saved, grad = _layout_inputs(layout)
    args = (grad, saved, aten.log_sigmoid_forward(saved)[1]) if name == "log_sigmoid_backward" else (grad, saved)
    got, want = getattr(actgrad.aten, name)(*args), getattr(aten, name)(*args)
    assert got.stride() == want.stride()
    torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("name", ["sigmoid_backward", "tanh_backward", "silu_backward", "log_sigmoid_backward"])
def test_drop_ins_refuse_what_aten_refuses_and_what_the_contract_does(name):
    x, g = torch.randn(4, 3), torch.randn(4, 3)

    def args(grad, saved):
        return (grad, saved, torch.zeros(())) if name == "log_sigmoid_backward" else (grad, saved)
    # refused by both with a RuntimeError (ATen's NotImplementedError for integers is one)
    for grad, saved in ((g.int(), x.int()), (g, torch.randn(5, 3))):
        if name == "log_sigmoid_backward" and grad.dtype == torch.int32:
            continue  # the float buffer is refused first there
        with pytest.raises(RuntimeError):
            getattr(aten, name)(*args(grad, saved))
        with pytest.raises(RuntimeError):
            getattr(actgrad.aten, name)(*args(grad, saved))
    # ATen broadcasts and promotes; actgrad's operators take one shape and one dtype (op-semantics A.3)
    for grad, saved in ((g, x[0]), (g, x.double())):
        if name == "log_sigmoid_backward" and saved.dtype == torch.float64:
            continue  # the f32 buffer does not match self there
        getattr(aten, name)(*args(grad, saved))
        with pytest.raises(RuntimeError):
            getattr(actgrad.aten, name)(*args(grad, saved))


def test_log_sigmoid_drop_in_computes_from_self_whatever_the_buffer():
    g, x, buffer = _aten_case("log_sigmoid_backward", torch.float32)
    want = actgrad.aten.log_sigmoid_backward(g, x, buffer)
    assert torch.equal(actgrad.aten.log_sigmoid_backward(g, x, torch.zeros_like(buffer)), want)
    assert torch.equal(actgrad.aten.log_sigmoid_backward(g, x, torch.zeros(())), want)  # broadcastable, as ATen takes


@pytest.mark.parametrize("buffer,words", [
    (lambda x: torch.zeros(5, 3), "broadcast"),
    (lambda x: torch.empty(0), "broadcast"),
    (lambda x: torch.zeros(4, 3, dtype=torch.float64), "dtype"),
    (lambda x: torch.zeros(4, 3, dtype=torch.int32), "dtype"),
    (lambda x: None, "Tensor"),
], ids=["shape", "empty", "f64", "int32", "None"])
def test_log_sigmoid_drop_in_refuses_the_buffers_aten_refuses(buffer, words):
    x, g = torch.randn(4, 3), torch.randn(4, 3)
    b = buffer(x)
    with pytest.raises(RuntimeError):
        aten.log_sigmoid_backward(g, x, b)
    with pytest.raises(RuntimeError, match=f"buffer.*{words}|{words}.*buffer"):
        actgrad.aten.log_sigmoid_backward(g, x, b)


def test_log_sigmoid_drop_in_refuses_a_buffer_that_would_enlarge_the_result():
    # ATen broadcasts the result to (2, 4, 3); actgrad's results have the inputs' shape
    x, g = torch.randn(4, 3), torch.randn(4, 3)
    assert aten.log_sigmoid_backward(g, x, torch.zeros(2, 4, 3)).shape == (2, 4, 3)
    with pytest.raises(RuntimeError, match="buffer of shape"):
        actgrad.aten.log_sigmoid_backward(g, x, torch.zeros(2, 4, 3))


# ---- special values ------------------------------------------------------------------------------------------------
# (op, attrs, saved, grad, expected); the ops are called in IR order by _call
SPECIAL = [
    # sigmoid: the dst polynomial is 0 at d = 0 and 1 (an infinite grad gives 0), the src form's limits at +-inf
    # (no sigmoid output is beyond [0, 1]: at d = 1e20 the f32 factor d*(1-d) overflows, as PyTorch's does, although
    # the exact value times 1e-30 is -1e10)
    ("sigmoid_backward", {"use_dst": True}, [0.0, 1.0, 0.5, 2.0, INF, NAN, 0.5, 1e20],
     [INF, -INF, 8.0, 1.0, 1.0, 1.0, NAN, 1e-30], [0.0, 0.0, 2.0, -2.0, -INF, NAN, NAN, -INF]),
    ("sigmoid_backward", {"use_dst": False}, [INF, -INF, INF, 0.0, -200.0, NAN],
     [1.0, 1.0, INF, 4.0, -INF, 1.0], [0.0, 0.0, 0.0, 1.0, 0.0, NAN]),
    # tanh: (1-d)*(1+d) is 0 at d = +-1; 1 - tanh^2 = 4e/(1+e)^2 is 1 at 0, 0 at +-inf and beyond |x| = 52
    ("tanh_backward", {"use_dst": True}, [1.0, -1.0, 0.0, 3.0, NAN, -1e20],
     [INF, -INF, -3.0, 1.0, 1.0, -1e-30], [0.0, 0.0, -3.0, -8.0, NAN, INF]),
    ("tanh_backward", {"use_dst": False}, [0.0, INF, -INF, 60.0, -60.0, NAN],
     [-3.0, INF, 1.0, INF, 1.0, 1.0], [-3.0, 0.0, 0.0, 0.0, 0.0, NAN]),
    # SiLU'(+inf) = 1, SiLU'(-inf) = 0, SiLU'(0) = 1/2; far-negative x: exp is 0, so is the derivative
    ("silu_grad", {}, [INF, -INF, -INF, 0.0, -0.0, -200.0, 200.0, NAN, 1.0],
     [3.0, 3.0, INF, 2.0, 2.0, -INF, INF, 1.0, NAN], [3.0, 0.0, 0.0, 1.0, 1.0, 0.0, INF, NAN, NAN]),
    # logsigmoid'(x) = sigmoid(-x): 1 at -inf, 0 at +inf, 1/2 at 0
    ("log_sigmoid_grad", {}, [-INF, INF, INF, 0.0, -200.0, NAN],
     [5.0, 5.0, -INF, 2.0, -INF, 1.0], [5.0, 0.0, 0.0, 1.0, -INF, NAN]),
    # softsign: 1 at 0, 0 at +-inf (an infinite grad there gives 0, not inf/inf)
    ("softsign_grad", {}, [0.0, -0.0, 1.0, -3.0, INF, -INF, INF, 1e30, NAN],
     [5.0, 5.0, 8.0, 32.0, 1.0, 1.0, -INF, INF, 1.0], [5.0, 5.0, 2.0, 2.0, 0.0, 0.0, 0.0, INF, NAN]),
    # sqrt from dst: +inf derivative at +-0 (0 * inf = NaN), a negative dst gives the formula's value, 0 at +-inf and
    # where 2*d overflows (|d| >= 2^127)
    ("sqrt_backward", {"use_dst": True}, [0.0, -0.0, 0.0, -0.0, 0.0, -2.0, 0.25, INF, -INF, 2.0 ** 127, 2.0 ** 127, NAN],
     [1.0, 1.0, -1.0, -1.0, 0.0, 1.0, 1.0, INF, 1.0, 1.0, INF, 1.0],
     [INF, INF, -INF, -INF, NAN, -0.25, 2.0, 0.0, 0.0, 0.0, 0.0, NAN]),
    # sqrt from src: a negative src (-inf included) gives NaN
    ("sqrt_backward", {"use_dst": False}, [0.0, -0.0, -0.0, 4.0, -1.0, -INF, INF, INF, NAN],
     [1.0, 1.0, -2.0, 8.0, 1.0, 1.0, 1.0, -INF, 1.0], [INF, INF, -INF, 2.0, NAN, NAN, 0.0, 0.0, NAN]),
]


def _call(op, saved, grad, attrs):
    spec = R.SPEC.BY_NAME[op]
    ins = (saved, grad) if spec.saved_index == 0 else (grad, saved)
    return getattr(ops, op)(*ins, *[attrs.get(a.name, a.default) for a in spec.attrs])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("op,attrs,saved,grad,want", SPECIAL,
                         ids=[f"{c[0]}-{c[1].get('use_dst', '')}" for c in SPECIAL])
def test_special_values(op, attrs, saved, grad, want, dtype):
    keep = [i for i, v in enumerate(saved) if dtype != torch.float16 or abs(v) < 65504 or math.isinf(v)]
    pick = lambda values: torch.tensor([values[i] for i in keep], dtype=torch.float64).to(dtype)  # noqa: E731
    got = _call(op, pick(saved), pick(grad), attrs)
    assert R.same_values(got, pick(want)).all(), (got, pick(want))
    # the reference says the same
    ref = R.REFS[op].f64(R.exact(pick(saved)), R.exact(pick(grad)), **attrs)
    assert R.same_values(R.round_f64(ref, dtype), pick(want)).all(), ref


# ---- accuracy beyond what the records state -----------------------------------------------------------------------
def _f32_sample(n=200_000, seed=3):
    gen = torch.Generator().manual_seed(seed)
    bits = torch.randint(-2 ** 31, 2 ** 31 - 1, (n,), generator=gen, dtype=torch.int64).to(torch.int32)
    return torch.cat([R.all_values(torch.float16).float(), R.all_values(torch.bfloat16).float(),
                      bits.view(torch.float32), torch.randn(n, generator=gen) * 3])


@pytest.mark.parametrize("op", ["sigmoid_backward", "tanh_backward"])
def test_dst_forms_hold_4_ulp_in_f32(op):
    # the dst polynomials' single-factor target over a wider f32 sample than the sweeps' (up to the factor's overflow)
    x = _f32_sample()
    x = x[torch.isfinite(x) & (x.abs() < 1e19)]  # beyond, the f32 factor overflows (the reference follows it)
    for gv in (1.0, -2.5, 3e4, 1e-30):
        g = torch.full_like(x, gv)
        got = _call(op, x, g, {"use_dst": True})
        want = R.round_f64(R.REFS[op].f64(R.exact(x), R.exact(g), use_dst=True), torch.float32)
        assert R.ulp_distance(got, want).max() <= 4, gv


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
def test_tanh_dst_16_bit_is_one_minus_d_squared(dtype):
    """From a 16-bit d the kernel's tanh derivative is 1 - d*d in f32 (d*d exact, the difference rounded once), times
    the gradient in f32, rounded to the dtype: every d, bit for bit (up to the sign of zero) against that formula in
    numpy float32. A rounding of 1-d or 1+d on the way, as (1-d)*(1+d) does in f32 for tiny d, would not show in the
    16-bit results; a wrong formula would."""
    d = R.all_values(dtype)
    d32 = d.float().numpy()
    for gv in (1.0, -2.5, 3.0e-3, 1.7e4, 2.0 ** -20):
        g = torch.full_like(d, gv)
        with np.errstate(all="ignore"):
            want32 = (np.float32(1) - d32 * d32) * g.float().numpy()
        want = torch.from_numpy(want32).to(dtype)
        got = _call("tanh_backward", d, g, {"use_dst": True})
        assert R.same_values(got, want).all(), R.describe_mismatch(got, want, {"d": d, "g": g})


def test_silu_near_its_zero_holds_the_absolute_bound_and_8_ulp_outside():
    # every 5th f32 value in [-4, -0.25]: SiLU' crosses 0 at -1.2785; its terms cancel by more than 1.5 from about
    # -3.2 to -0.55
    lo, hi = np.float32(-4.0).view(np.int32), np.float32(-0.25).view(np.int32)
    x = torch.from_numpy(np.arange(hi, lo + 1, 5, dtype=np.int32).view(np.float32))
    for gv in (1.0, -3e4):
        g = torch.full_like(x, gv)
        got = R.exact(ops.silu_grad(g, x))
        exact = SF.silu_grad_f64(R.exact(x), R.exact(g))
        cancels = SF.silu_cancels(R.exact(x))
        assert cancels.any() and not cancels.all()
        assert (np.abs(got - exact)[cancels] <= 1e-6 * abs(gv)).all()
        want = R.round_f64(exact, torch.float32)
        ulps = R.ulp_distance(torch.from_numpy(got.astype(np.float32)), want)
        assert ulps[~cancels].max() <= 8


@pytest.mark.parametrize("op,attrs,sign", [
    ("sigmoid_backward", {"use_dst": False}, -1), ("sigmoid_backward", {"use_dst": False}, 1),
    ("tanh_backward", {"use_dst": False}, 1), ("silu_grad", {}, -1), ("log_sigmoid_grad", {}, 1)])
def test_exp_underflow_holds_the_absolute_bound(op, attrs, sign):
    # every f32 value from 40 to 110 in magnitude (tanh's argument 2|x| underflows beyond 43.7): exp(-|x|) is an f32
    # subnormal or 0 where the contract's ulp target gives way to 4*|grad*coef|*2^-149
    lo, hi = np.float32(40.0).view(np.int32), np.float32(110.0).view(np.int32)
    x = torch.from_numpy(np.arange(lo, hi + 1, 7, dtype=np.int32).view(np.float32)) * sign
    ref = R.REFS[op]
    for gv in (1.0, 1e30, -3e4):
        g = torch.full_like(x, gv)
        got = R.exact(_call(op, x, g, attrs))
        exact = ref.f64(R.exact(x), R.exact(g), **attrs)
        bound = ref.abs_bound(R.exact(x), R.exact(g), **attrs)
        ulps = R.ulp_distance(torch.from_numpy(got.astype(np.float32)), R.round_f64(exact, torch.float32))
        assert ((np.abs(got - exact) <= bound) | (ulps <= ref.ulp_f32(R.full(op, attrs)))).all(), gv
        assert (bound > 0).any()
