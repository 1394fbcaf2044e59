"""Calling the actgrad operators uniformly from the tests: by op name, with (saved, grad) whatever the IR order."""
from __future__ import annotations

import contextlib
import math

import numpy as np
import torch

import reference as R

DTYPES = (torch.float32, torch.float16, torch.bfloat16)
LOW = (torch.float16, torch.bfloat16)
DTYPE_IDS = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
DEFAULT_SOC = "Ascend910B2"


def ag():
    import actgrad  # noqa: PLC0415 - the tests of the references run without the extension
    return actgrad


def positional(op: str, saved, grad):
    return (saved, grad) if R.SPEC.BY_NAME[op].saved_index == 0 else (grad, saved)


def full_attrs(op: str, attrs: dict) -> dict:
    return R.full(op, attrs)


def call(op: str, saved, grad, *, out=None, **attrs):
    """actgrad.<op>(...) with the IR argument order, every attribute passed by keyword."""
    fn = getattr(ag(), op)
    a = full_attrs(op, attrs)
    if out is None:
        return fn(*positional(op, saved, grad), **a)
    return fn(*positional(op, saved, grad), **a, out=out)


def call_torch_ops(op: str, saved, grad, *, out=None, **attrs):
    """torch.ops.actgrad.<op> (functional) or its .out overload, attributes by keyword."""
    ag()  # registers the ops
    packet = getattr(torch.ops.actgrad, op)
    a = full_attrs(op, attrs)
    if out is None:
        return packet(*positional(op, saved, grad), **a)
    return packet.out(*positional(op, saved, grad), **a, out=out)


@contextlib.contextmanager
def soc(name: str):
    """Run the twin with SoC profile name inside the block; restores the default afterwards."""
    a = ag()
    a.set_default_soc(name)
    try:
        yield
    finally:
        a.set_default_soc(None)


def interesting_values(dtype, bounds=(), n_random=0, seed=0) -> torch.Tensor:
    """Special values of dtype: +-0, +-inf, NaN, smallest/largest subnormal and normal, max, +-1, and each bound
    with its two neighbours (torch.nextafter in dtype) and its negation; plus n_random random normals."""
    inf = torch.tensor(math.inf, dtype=dtype)
    zero = torch.tensor(0.0, dtype=dtype)
    fi = torch.finfo(dtype)
    tiny_sub = torch.nextafter(zero, inf)
    vals = [0.0, -0.0, math.inf, -math.inf, math.nan, fi.max, -fi.max, fi.tiny, -fi.tiny, 1.0, -1.0, 0.5, 2.0,
            float(tiny_sub), -float(tiny_sub), float(torch.nextafter(torch.tensor(fi.tiny, dtype=dtype), zero)),
            -float(torch.nextafter(torch.tensor(fi.tiny, dtype=dtype), zero))]
    t = [torch.tensor(vals, dtype=torch.float64).to(dtype)]
    for b in bounds:
        if not math.isfinite(b):
            continue
        for s in (1.0, -1.0):
            bb = torch.tensor(b * s, dtype=torch.float64)
            # the bound as f32 (nearest, as the kernel sees it) and rounded down/up in dtype: nextafter around both
            c = bb.to(dtype)
            t.append(torch.stack([c, torch.nextafter(c, inf), torch.nextafter(c, -inf),
                                  torch.nextafter(torch.nextafter(c, inf), inf),
                                  torch.nextafter(torch.nextafter(c, -inf), -inf)]))
    if n_random:
        g = torch.Generator().manual_seed(seed)
        t.append((torch.randn(n_random, generator=g, dtype=torch.float64) * 4).to(dtype))
    return torch.cat(t)


def pairs(a: torch.Tensor, b: torch.Tensor):
    """Every combination (a_i, b_j) as two flat tensors."""
    return a.repeat_interleave(b.numel()), b.repeat(a.numel())


def check_exact(got: torch.Tensor, want: torch.Tensor, inputs: dict, what: str = ""):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    ok = R.same_values(got, want)
    assert ok.all(), what + "\n" + R.describe_mismatch(got, want, inputs)


@R.quiet
def check_transcendental(op: str, got: torch.Tensor, saved: torch.Tensor, grad: torch.Tensor, attrs: dict,
                         what: str = "") -> dict:
    """Assert the accuracy contract of a transcendental op and return the measured statistics.

    * target region (see reference.transcendental_regions): ulp distance to the correctly rounded f64 reference
      <= ULP_TARGET[dtype];
    * f32-exp-underflow region: |got - ref| <= target ulps + 2*|grad*coef|*2**-149;
    * finite inputs whose f32 argument (beta*x, x*input_scale) is inexact: |got - ref| <= target ulps +
      |ref|*|arg|*2**-23 (the propagated argument rounding);
    * infinite inputs: the correctly rounded f64 reference (0 where the f32 derivative is exactly 0) within the target;
    * NaN in either input: NaN.
    """
    a = full_attrs(op, attrs)
    dtype = saved.dtype
    x, g = R.exact(saved).reshape(-1), R.exact(grad).reshape(-1)
    ref64 = R.reference_f64(op, x, g, **a)
    want = R.round_f64(ref64, dtype)
    got = got.reshape(-1)
    d = R.ulp_distance(got, want)
    tgt, under, other = R.transcendental_regions(op, x, g, **a)
    target = R.ULP_TARGET[dtype]
    inputs = {"saved": saved, "grad": grad}
    stats = {"n_target": int(tgt.sum()), "max_ulp": int(d[tgt].max()) if tgt.any() else 0}
    bad = tgt & (d > target)
    assert not bad.any(), f"{what} ulp target {target} exceeded\n" + R.describe_mismatch(got, want, inputs, mask=bad)

    gv = R.exact(got)
    ulp = R.ulp_of(want)
    err = np.abs(gv - ref64)
    with np.errstate(all="ignore"):
        bound_u = target * ulp + R.underflow_abs_bound(op, x, g, **a)
        bad = under & (d > target) & ~(err <= bound_u)
        assert not bad.any(), f"{what} underflow region\n" + R.describe_mismatch(got, want, inputs, mask=bad)
        stats["n_underflow"] = int(under.sum())

        finite = np.isfinite(x) & np.isfinite(g) & other & np.isfinite(ref64)
        arg = x * (a["input_scale"] if op == "elu_backward" else a["beta"])
        bound_a = target * ulp + np.abs(ref64) * np.abs(arg) * 2.0 ** -23 + R.underflow_abs_bound(op, x, g, **a)
        if op == "elu_backward":
            bound_a = np.where(x > 0, target * ulp, bound_a)  # g*scale: no argument
        # where the f32 coefficient grad*input_scale*alpha*scale overflows, the contract's evaluation order gives
        # +-inf (as ATen; 0 where exp(x*input_scale) is 0 in f32 too)
        inf_ok = np.isinf(gv) & (np.sign(gv) == np.sign(ref64))
        if op == "elu_backward":
            inf_ok &= (x <= 0) & R.elu_coef_overflows(g, a)
        else:
            inf_ok &= False
        bad = finite & (d > target) & ~(err <= bound_a) & ~inf_ok
        assert not bad.any(), f"{what} argument-rounding region\n" + R.describe_mismatch(got, want, inputs, mask=bad)
        stats["n_other_finite"] = int(finite.sum())

    nan_in = np.isnan(x) | np.isnan(g)
    # infinite inputs: the correctly rounded f64 value, which is 0 where the f32 derivative is exactly 0 (A.2); an
    # exp/sigmoid within the target of 0 may be 0 or not, so an infinite grad may give 0 or the signed inf there
    near_zero, sign = R.exp_factor_near_zero(op, x, **a)
    either = near_zero & np.isinf(g) & ((gv == 0) | (np.isinf(gv) & (np.sign(gv) == np.sign(g) * sign)))
    bad = (np.isinf(x) | np.isinf(g)) & ~nan_in & (d > target) & ~inf_ok & ~either
    assert not bad.any(), f"{what} infinite inputs\n" + R.describe_mismatch(got, want, inputs, mask=bad)
    bad = nan_in & ~np.isnan(gv)
    assert not bad.any(), f"{what} NaN policy\n" + R.describe_mismatch(got, want, inputs, mask=bad)
    return stats


@R.quiet
def bounded_regions(op: str, got: torch.Tensor, saved: torch.Tensor, grad: torch.Tensor, attrs: dict) -> dict:
    """The contract of a transcendental form from its OpRef, element by element (no assertion):

    * ok: within the ulp target of the correctly rounded float64 value, or within the record's absolute bound (plus
      the target's ulps) where it has one; NaN exactly where an input is NaN; for an infinite grad where the float64
      derivative is within the f32 target or the absolute bound of 0 (the kernel's f32 derivative may be 0 there), 0
      or the reference's inf;
    * target: where the ulp target alone applies (finite inputs, no absolute bound), for the max-ulp statistics."""
    a = full_attrs(op, attrs)
    ref = R.REFS[op]
    x, g = R.exact(saved).reshape(-1), R.exact(grad).reshape(-1)
    ref64 = ref.f64(x, g, **a)
    want = R.round_f64(ref64, saved.dtype)
    got = got.reshape(-1)
    d = R.ulp_distance(got, want)
    target = R.ulp_target(op, a, saved.dtype)
    gv = R.exact(got)
    extra = ref.abs_bound(x, g, **a) if ref.abs_bound is not None else np.zeros_like(x)
    with np.errstate(all="ignore"):
        ok = (d <= target) | (np.abs(gv - ref64) <= target * R.ulp_of(want) + extra)
        # the kernel's f32 derivative may be 0 where the exact one is within 4 f32 ulps or the absolute bound of 0
        ones = np.ones_like(x)
        derivative = np.abs(ref.f64(x, ones, **a))
        near_zero = np.maximum(4 * 2.0 ** -149, ref.abs_bound(x, ones, **a) if ref.abs_bound is not None else 0.0)
        tiny = np.isinf(g) & np.isfinite(x) & (derivative < near_zero)
        ok |= tiny & ((gv == 0) | (d == 0))
    nan_in = np.isnan(x) | np.isnan(g)
    ok = np.where(nan_in, np.isnan(gv), ok)  # elsewhere a NaN is ok only where the reference is NaN (d == 0)
    in_target = np.isfinite(x) & np.isfinite(g) & (extra == 0) & ~tiny
    return {"ok": ok, "target": in_target, "ulp": d, "want": want}


@R.quiet
def check_bounded(op: str, got: torch.Tensor, saved: torch.Tensor, grad: torch.Tensor, attrs: dict,
                  what: str = "") -> dict:
    """Assert bounded_regions' contract; return the max ulp over the target region."""
    r = bounded_regions(op, got, saved, grad, attrs)
    assert r["ok"].all(), (f"{what} outside the accuracy contract\n"
                           + R.describe_mismatch(got, r["want"], {"saved": saved, "grad": grad}, mask=~r["ok"]))
    d = r["ulp"][r["target"]]
    return {"n_target": int(r["target"].sum()), "max_ulp": int(d.max()) if d.size else 0}


@R.quiet
def check_op(op: str, got: torch.Tensor, saved: torch.Tensor, grad: torch.Tensor, attrs: dict, what: str = ""):
    """Exact check for the bit-exact forms, the accuracy contract for the others (the record's own check, or the
    generic one)."""
    a = full_attrs(op, attrs)
    assert got.dtype == saved.dtype and got.shape == saved.shape, (got.dtype, got.shape, saved.dtype, saved.shape)
    if R.is_transcendental(op, a):
        check = R.REFS[op].check or check_bounded
        return check(op, got, saved, grad, a, what)
    want = R.expected(op, saved, grad, **a)
    check_exact(got, want, {"saved": saved, "grad": grad}, what)
    return {"max_ulp": int(R.ulp_distance(got, want).max(initial=0)), "n_target": got.numel()}


def bits_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit-for-bit equality (NaN-safe, layout-independent)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    ity = _INT_VIEWS[a.dtype]
    return torch.equal(a.contiguous().view(ity), b.contiguous().view(ity))


_INT_VIEWS = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}
