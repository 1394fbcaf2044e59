"""Reference implementations and numeric helpers for the actgrad operator tests.

Two kinds of references, per docs/op-semantics Part A.2:

* ``*_f32`` -- the contract of the piecewise-linear operators (HardtanhGrad, HardsigmoidBackward, ClampBackward,
  EluBackward with use_dst=True): the inputs widened exactly to float32, every arithmetic step in NumPy float32
  (IEEE, round-half-even per operation), the float32 result rounded once to the output dtype. The kernels must be
  bit-exact against it.
* ``*_f64`` -- the mathematical value in float64 (oneDNN / ATen formulas with actgrad's NaN policy). Rounded
  correctly to the output dtype (``round_f64``) it is the target of the ulp bounds of the transcendental operators
  (EluBackward with use_dst=False, SoftPlusBackward).

Everything works on NumPy arrays of the exact input values (``exact(t)``: float64 copies of the tensors).
The helpers at the bottom give all 65,536 bit patterns of float16/bfloat16, correct rounding float64 -> f32/f16/bf16
(torch casts float64 -> f16/bf16 through float32, i.e. with double rounding; ``round_f64`` rounds to odd first),
and the distance in ulps between two tensors of one dtype.
"""
from __future__ import annotations

import functools
import importlib.util
import math
import pathlib

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]


def quiet(fn):
    """Run fn with NumPy floating-point warnings off: the references compute on NaN/inf/overflow on purpose."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return wrapper

TORCH_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
DTYPE_NAMES = {v: k for k, v in TORCH_DTYPES.items()}
F32 = np.float32
F32_MIN_NORMAL = float(np.finfo(np.float32).tiny)  # 2**-126
F32_MAX = float(np.finfo(np.float32).max)
LN_F32_MAX = math.log(float(np.finfo(np.float32).max))
LN_F32_MIN_NORMAL = math.log(F32_MIN_NORMAL)  # -87.33654...


def load_package_module(name: str):
    """python/actgrad/<name>.py, loaded by path (needs neither the extension nor an installed package)."""
    path = ROOT / "python" / "actgrad" / f"{name}.py"
    mod_spec = importlib.util.spec_from_file_location(f"_actgrad_{name}_for_tests", path)
    mod = importlib.util.module_from_spec(mod_spec)
    import sys
    sys.modules[mod_spec.name] = mod  # dataclasses need the module registered
    mod_spec.loader.exec_module(mod)
    return mod


def load_spec():
    return load_package_module("spec")


SPEC = load_spec()
OP_NAMES = tuple(op.name for op in SPEC.OPS)
# the elementwise operators (tests/refs holds a record for each) and the row reductions (ROW_F64 below)
ELEMENTWISE_OP_NAMES = tuple(op.name for op in SPEC.ELEMENTWISE_OPS)
ROW_OP_NAMES = tuple(op.name for op in SPEC.ROW_REDUCTIONS)


# ----------------------------------------------------------------------------------------------------------------
# tensors <-> exact NumPy values
# ----------------------------------------------------------------------------------------------------------------
@quiet
def exact(t: torch.Tensor) -> np.ndarray:
    """The exact values of a float tensor as a float64 array (f16/bf16/f32 -> f64 is exact)."""
    return t.detach().to(torch.float64).contiguous().numpy().copy()


@quiet
def as_f32(t: torch.Tensor) -> np.ndarray:
    """The exact values of a f16/bf16/f32 tensor as a float32 array (exact widening)."""
    return t.detach().to(torch.float32).contiguous().numpy().copy()


@quiet
def round_f32(x: np.ndarray, dtype) -> torch.Tensor:
    """Round a float32 array once to dtype (round-half-even; NaN/inf kept), as a tensor."""
    dtype = TORCH_DTYPES.get(dtype, dtype)
    t = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
    return t.to(dtype)


@quiet
def _f64_to_f32_round_to_odd(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 with rounding to odd: truncate, then set the last bit if inexact.

    Rounding to odd into a format with >= 2 more bits than the final one makes the second rounding (RNE to
    f16/bf16) equal to a single correct rounding of the float64 value (Boldo & Melquiond). float32 has 24 bits,
    bf16 8 and f16 11; in the subnormal ranges the margin is still >= 13 bits.
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        y = x.astype(np.float32)
    y64 = y.astype(np.float64)
    inexact = (y64 != x) & ~np.isnan(x) & ~np.isinf(x)
    toward_zero = inexact & (np.abs(y64) > np.abs(x))
    y = np.where(toward_zero, np.nextafter(y, np.float32(0)), y).astype(np.float32)
    bits = y.view(np.uint32).copy()
    bits[inexact] |= np.uint32(1)
    return bits.view(np.float32)


@quiet
def round_f64(x: np.ndarray, dtype) -> torch.Tensor:
    """Correctly rounded (round-half-even, overflow to inf) float64 -> dtype, as a tensor."""
    dtype = TORCH_DTYPES.get(dtype, dtype)
    x = np.asarray(x, dtype=np.float64)
    if dtype == torch.float32:
        with np.errstate(all="ignore"):
            return torch.from_numpy(np.ascontiguousarray(x.astype(np.float32)))
    if dtype in (torch.float16, torch.bfloat16):
        return torch.from_numpy(np.ascontiguousarray(_f64_to_f32_round_to_odd(x))).to(dtype)
    raise TypeError(dtype)


# ----------------------------------------------------------------------------------------------------------------
# bit patterns, ulps
# ----------------------------------------------------------------------------------------------------------------
def all_values(dtype) -> torch.Tensor:
    """All 65,536 bit patterns of float16 or bfloat16 (NaNs, infs, subnormals, both zeros included)."""
    dtype = TORCH_DTYPES.get(dtype, dtype)
    assert dtype in (torch.float16, torch.bfloat16)
    return torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(dtype)


def finite_values(dtype) -> torch.Tensor:
    v = all_values(dtype)
    return v[torch.isfinite(v)]


_INT_VIEW = {torch.float32: (torch.int32, 32), torch.float16: (torch.int16, 16), torch.bfloat16: (torch.int16, 16)}


@quiet
def ordered_int(t: torch.Tensor) -> np.ndarray:
    """Map each float to an integer so that adjacent representable values differ by 1 and +0 == -0 == 0."""
    ity, nbits = _INT_VIEW[t.dtype]
    bits = t.detach().contiguous().view(ity).numpy().astype(np.int64) & ((1 << nbits) - 1)
    sign = 1 << (nbits - 1)
    mag = bits & (sign - 1)
    return np.where(bits & sign, -mag, mag)


NAN_MISMATCH = np.iinfo(np.int64).max


@quiet
def ulp_distance(got: torch.Tensor, want: torch.Tensor) -> np.ndarray:
    """Number of representable values of the common dtype between got and want (0 = equal, zeros of either sign
    equal, NaN vs NaN = 0, NaN vs number = NAN_MISMATCH). Infinities count as the value after the largest finite."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    got = got.reshape(-1)
    want = want.reshape(-1)
    d = np.abs(ordered_int(got) - ordered_int(want))
    gn = torch.isnan(got).numpy()
    wn = torch.isnan(want).numpy()
    d = np.where(gn & wn, 0, d)
    d = np.where(gn ^ wn, NAN_MISMATCH, d)
    return d


@quiet
def ulp_of(want: torch.Tensor) -> np.ndarray:
    """Size (float64) of one ulp of dtype at each value of want (the gap to the next value away from zero)."""
    w = want.reshape(-1).detach()
    a = w.abs()
    nxt = torch.nextafter(a, torch.full_like(a, math.inf))
    return (exact(nxt) - exact(a))


@quiet
def same_values(got: torch.Tensor, want: torch.Tensor) -> np.ndarray:
    """Elementwise equality of values (NaN == NaN, +0 == -0); bool array."""
    return ulp_distance(got, want) == 0


@quiet
def describe_mismatch(got, want, inputs: dict, limit: int = 8, mask=None) -> str:
    """A readable list of the first mismatching elements for assertion messages."""
    d = ulp_distance(got, want)
    bad = d != 0 if mask is None else mask
    idx = np.flatnonzero(bad)[:limit]
    lines = [f"{int(bad.sum())} of {bad.size} elements differ; first:"]
    flat = {k: v.reshape(-1) for k, v in inputs.items()}
    for i in idx:
        ins = ", ".join(f"{k}={float(v[i])!r}" for k, v in flat.items())
        lines.append(f"  [{i}] {ins}: got {float(got.reshape(-1)[i])!r} want {float(want.reshape(-1)[i])!r}"
                     f" ({d[i] if d[i] != NAN_MISMATCH else 'NaN mismatch'} ulp)")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------------------------
# float32-step references (the bit-exact contract of the piecewise-linear ops)
# ----------------------------------------------------------------------------------------------------------------
@quiet
def _f32(v) -> np.float32:
    with np.errstate(all="ignore"):
        return np.float32(v)  # nearest rounding of the double attribute, overflow to inf (like PyTorch)


@quiet
def _nan_policy(out, *inputs):
    bad = np.zeros(np.shape(out), dtype=bool)
    for a in inputs:
        bad |= np.isnan(a)
    return np.where(bad, np.array(np.nan, dtype=out.dtype), out).astype(out.dtype)


def _zero_where_derivative_is_zero(out, g, zero):
    """Select semantics (contract A.2): where the f32 derivative is exactly 0 the result is 0 for any grad but NaN
    (an infinite one included, and whatever inf*0 an intermediate would give)."""
    return np.where(zero & ~np.isnan(g), np.array(0, dtype=out.dtype), out).astype(out.dtype)


@quiet
def band_f32(x, g, lo32, hi32):
    x = np.asarray(x, np.float32)
    g = np.asarray(g, np.float32)
    out = np.where((x > lo32) & (x < hi32), g, np.float32(0)).astype(np.float32)
    return _nan_policy(out, x, g)


@quiet
def hardtanh_grad_f32(result, grad, min_val=-1.0, max_val=1.0):
    return band_f32(result, grad, _f32(min_val), _f32(max_val))


@quiet
def clamp_backward_f32(src_or_dst, diff_dst, min, max, use_dst=True):  # noqa: A002 - contract names
    return band_f32(src_or_dst, diff_dst, _f32(min), _f32(max))


@quiet
def hardsigmoid_bounds(alpha, beta):
    """The open band of x where 0 < alpha*x + beta < 1, computed in double (contract A.2) from the float32 attributes
    (the IR's attribute type)."""
    alpha, beta = float(_f32(alpha)), float(_f32(beta))
    a = -beta / alpha
    b = (1.0 - beta) / alpha
    return (a, b) if a <= b else (b, a)


@quiet
def hardsigmoid_backward_f32(grad_output, self, alpha=1.0 / 6.0, beta=0.5):
    x = np.asarray(self, np.float32)
    g = np.asarray(grad_output, np.float32)
    lo, hi = hardsigmoid_bounds(alpha, beta)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        val = (g * _f32(alpha)).astype(np.float32)
    out = np.where((x64 > lo) & (x64 < hi), val, np.float32(0)).astype(np.float32)
    return _nan_policy(out, x, g)


@quiet
def elu_coefs_f32(alpha, scale, input_scale):
    """ATen's opmath coefficients: negcoef = float(alpha) * float(scale) (an f32 product), poscoef, negiptcoef."""
    with np.errstate(all="ignore"):
        return _f32(alpha) * _f32(scale), _f32(scale), _f32(input_scale)


@quiet
def elu_backward_f32(src_or_dst, diff_dst, alpha, use_dst=True, scale=1.0, input_scale=1.0):
    """ATen elu_backward in float32 steps. For use_dst=False the exp is NumPy's float32 exp (not a contract)."""
    x = np.asarray(src_or_dst, np.float32)
    g = np.asarray(diff_dst, np.float32)
    negcoef, poscoef, negiptcoef = elu_coefs_f32(alpha, scale, input_scale)
    with np.errstate(all="ignore"):
        pos = g * poscoef
        if use_dst:
            neg = (g * negiptcoef) * (x + negcoef)
        else:
            neg = ((g * negiptcoef) * negcoef) * np.exp(x * negiptcoef)
    out = np.where(x > 0, pos, neg).astype(np.float32)
    # also where a finite grad's f32 coefficient overflowed and meets the zero derivative as inf
    out = _zero_where_derivative_is_zero(out, g, elu_derivative_is_zero(x, alpha, use_dst, scale, input_scale))
    return _nan_policy(out, x, g)


@quiet
def elu_derivative_is_zero(x, alpha, use_dst, scale, input_scale):
    """Where the f32 derivative of ELU's branch is exactly 0: an x factor (x + alpha*scale, or exp(x*input_scale)
    rounded to f32) that is 0, or a zero coefficient times a factor that is not NaN (-inf*0 is)."""
    negcoef, poscoef, negiptcoef = elu_coefs_f32(alpha, scale, input_scale)
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        if use_dst:
            x_factor = x + np.float64(negcoef)  # exact for f32 operands as far as == 0 is concerned
            neg_zero = negiptcoef == 0
        else:
            x_factor = np.exp(x * np.float64(negiptcoef)).astype(np.float32)
            neg_zero = negiptcoef == 0 or negcoef == 0
    return np.where(x > 0, poscoef == 0, (neg_zero & ~np.isnan(x_factor)) | (x_factor == 0))


# ----------------------------------------------------------------------------------------------------------------
# float64 references (mathematical values; oneDNN / ATen formulas + NaN policy)
# ----------------------------------------------------------------------------------------------------------------
@quiet
def hardtanh_grad_f64(result, grad, min_val=-1.0, max_val=1.0):
    x = np.asarray(result, np.float64)
    g = np.asarray(grad, np.float64)
    lo, hi = float(_f32(min_val)), float(_f32(max_val))
    out = np.where((x > lo) & (x < hi), g, 0.0)
    return _nan_policy(out, x, g)


@quiet
def clamp_backward_f64(src_or_dst, diff_dst, min, max, use_dst=True):  # noqa: A002
    return hardtanh_grad_f64(src_or_dst, diff_dst, min, max)


@quiet
def hardsigmoid_backward_f64(grad_output, self, alpha=1.0 / 6.0, beta=0.5):
    x = np.asarray(self, np.float64)
    g = np.asarray(grad_output, np.float64)
    lo, hi = hardsigmoid_bounds(alpha, beta)
    with np.errstate(all="ignore"):
        out = np.where((x > lo) & (x < hi), g * alpha, 0.0)
    return _nan_policy(out, x, g)


@quiet
def elu_backward_f64(src_or_dst, diff_dst, alpha, use_dst=True, scale=1.0, input_scale=1.0):
    """The formula in double with the operator's coefficients: the IR's attributes are f32, and alpha*scale is an
    f32 product (ATen's opmath)."""
    x = np.asarray(src_or_dst, np.float64)
    g = np.asarray(diff_dst, np.float64)
    negcoef, poscoef, negiptcoef = (np.float64(c) for c in elu_coefs_f32(alpha, scale, input_scale))
    with np.errstate(all="ignore"):
        pos = g * poscoef
        if use_dst:
            neg = g * negiptcoef * (x + negcoef)
        else:
            neg = g * negiptcoef * negcoef * np.exp(x * negiptcoef)
    out = np.where(x > 0, pos, neg)
    out = _zero_where_derivative_is_zero(out, g, elu_derivative_is_zero(x, alpha, use_dst, scale, input_scale))
    return _nan_policy(out, x, g)


@quiet
def sigmoid_f64(z):
    z = np.asarray(z, np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(-np.abs(z))
        return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


@quiet
def soft_plus_backward_f64(src, diff_dst, beta=1.0, threshold=math.inf):
    """grad if f32(beta)*x > f32(threshold) (the decision is taken on the f32 product, as the kernel does), else
    grad*sigmoid(beta*x) evaluated in double with the operator's beta, the f32 attribute of the IR."""
    x = np.asarray(src, np.float64)
    g = np.asarray(diff_dst, np.float64)
    with np.errstate(all="ignore"):
        bx32 = _f32(beta) * x.astype(np.float32)
        passes = bx32 > _f32(threshold)
        sigmoid = sigmoid_f64(np.float64(_f32(beta)) * x)
        val = g * sigmoid
    out = np.where(passes, g, _zero_where_derivative_is_zero(val, g, sigmoid.astype(np.float32) == 0))
    return _nan_policy(out, x, g)


# ----------------------------------------------------------------------------------------------------------------
# float64 references of the row reductions (family "row"): a sum along `axis`, then an elementwise step
# ----------------------------------------------------------------------------------------------------------------
@quiet
def _row_nan_policy(out, axis, *bad_elements):
    """Where any of `bad_elements` (boolean arrays) holds anywhere in a row (the elements sharing every index but
    `axis`), the whole row is NaN."""
    bad = np.zeros(np.shape(out), dtype=bool)
    for b in bad_elements:
        bad |= b.any(axis=axis, keepdims=True)
    return np.where(bad, np.nan, out)


def _as_rows(*arrays):
    """A 0-dimensional array is one row of one element (as ATen and actgrad wrap axis 0 or -1 of it)."""
    return [np.asarray(a, np.float64).reshape(np.shape(a) or (1,)) for a in arrays]


@quiet
def softmax_backward_f64(diff_dst, dst, axis):
    """oneDNN SoftMaxBackward / ATen _softmax_backward_data: dst*(diff_dst - sum_axis(diff_dst*dst)); NaN in either
    input makes its row NaN."""
    g, d = _as_rows(diff_dst, dst)
    out = d * (g - (g * d).sum(axis=axis, keepdims=True))
    return _row_nan_policy(out, axis, np.isnan(g), np.isnan(d)).reshape(np.shape(dst))


@quiet
def log_softmax_backward_f64(diff_dst, dst, axis):
    """oneDNN LogSoftmaxBackward / ATen _log_softmax_backward_data: diff_dst - exp(dst)*sum_axis(diff_dst); NaN in
    either input makes its row NaN, and so does an exp(dst) that overflows f32 (dst = +inf or > log(FLT_MAX)): the
    kernel adds 0*exp(dst) into the sum so that a NaN in dst reaches it (docs/row_reductions.md)."""
    g, d = _as_rows(diff_dst, dst)
    out = g - np.exp(d) * g.sum(axis=axis, keepdims=True)
    return _row_nan_policy(out, axis, np.isnan(g), np.isnan(d), d > LN_F32_MAX).reshape(np.shape(dst))


ROW_F64 = {"soft_max_backward": softmax_backward_f64, "log_softmax_backward": log_softmax_backward_f64}
# The bound of one f32 evaluation, shared with the package (python/actgrad/row_bounds.py, derived in
# docs/row_reductions.md): it bounds the distance to the float64 values above, which are computed here.
ROW_BOUNDS = load_package_module("row_bounds")


def row_f32_error_bound(op, g, d, axis):
    """ROW_BOUNDS.row_f32_error_bound on NumPy arrays of the exact values (`axis` wrapped into [0, rank)). A wrong
    formula misses it by about |dst*s| or exp(dst)*|s| (tests/test_softmax_backward.py,
    test_the_bound_rejects_a_wrong_formula)."""
    as_tensor = (torch.from_numpy(np.asarray(a, np.float64)) for a in (g, d))
    return ROW_BOUNDS.row_f32_error_bound(op, *as_tensor, axis).numpy()


# ----------------------------------------------------------------------------------------------------------------
# Where the ulp targets of the transcendental ops apply
# ----------------------------------------------------------------------------------------------------------------
ULP_TARGET = {torch.float32: 4, torch.float16: 1, torch.bfloat16: 1}


@quiet
def transcendental_regions(op: str, saved: np.ndarray, grad: np.ndarray, **attrs):
    """Split the elements of a transcendental op into (target, underflow, other):

    * target: the ulp target of contract A.2 applies;
    * underflow: the f32 intermediate exp/sigmoid is subnormal (exponent argument < ln(FLT_MIN)); there the f32
      computation cannot carry more than an absolute error of about |grad*coef| * 2**-149 (``underflow_abs_bound``);
    * other: neither (f32 overflow of grad*coef or of ELU's exp, NaN/inf inputs, zero-derivative inf*0); tested separately
      (special values, PyTorch with tolerance).

    The exponent argument beta*x / x*input_scale counts with the operator's f32 coefficient, whose product with x
    the kernel evaluates without rounding error (ExpOfProduct), so an inexact f32 product is in the target.
    """
    a = {**DEFAULT_ATTRS[op], **attrs}
    x = np.asarray(saved, np.float64)
    g = np.asarray(grad, np.float64)
    finite = np.isfinite(x) & np.isfinite(g)
    with np.errstate(all="ignore"):
        if op == "elu_backward":
            arg = x * np.float64(_f32(a["input_scale"]))
            neg = x <= 0
            under = neg & (arg < LN_F32_MIN_NORMAL)
            # a negative input_scale can push x*input_scale past ln(FLT_MAX): the f32 exp is inf there (as ATen's)
            overflow = neg & (elu_coef_overflows(g, a) | (arg > LN_F32_MAX))
        elif op == "soft_plus_backward":
            arg = x * np.float64(_f32(a["beta"]))
            under = arg < LN_F32_MIN_NORMAL
            overflow = np.zeros_like(under)
        else:
            raise ValueError(op)
    ok = finite & ~overflow
    return ok & ~under, ok & under, ~ok


@quiet
def elu_coef_overflows(grad, attrs) -> np.ndarray:
    """Where the f32 coefficient (grad*input_scale)*(alpha*scale) of the src form overflows: the evaluation order
    of the contract then gives +-inf although the f64 value of the whole product may be finite."""
    negcoef, _, negiptcoef = elu_coefs_f32(attrs["alpha"], attrs["scale"], attrs["input_scale"])
    with np.errstate(all="ignore"):
        c = (np.asarray(grad, np.float64).astype(np.float32) * negiptcoef) * negcoef
    return np.isinf(c) & np.isfinite(np.asarray(grad, np.float64))


@quiet
def exp_factor_near_zero(op: str, saved, **attrs):
    """Where the exact exp/sigmoid factor of the derivative is positive but within 4 f32 ulps (the f32 target) of 0:
    the kernel's f32 value is accurate to the target, not correctly rounded, so whether it is exactly 0 there (and an
    infinite grad gives 0 rather than inf) is the kernel's call. Returns that mask and the sign of the derivative."""
    a = {**DEFAULT_ATTRS[op], **attrs}
    x = np.asarray(saved, np.float64)
    with np.errstate(all="ignore"):
        if op == "elu_backward":
            negcoef, _, negiptcoef = elu_coefs_f32(a["alpha"], a["scale"], a["input_scale"])
            factor = np.where(x <= 0, np.exp(x * np.float64(negiptcoef)), 1.0)
            sign = np.where(x <= 0, np.sign(np.float64(negiptcoef) * np.float64(negcoef)), 1.0)
        elif op == "soft_plus_backward":
            factor = sigmoid_f64(np.float64(_f32(a["beta"])) * x)
            sign = np.ones_like(factor)
        else:
            raise ValueError(op)
    return (factor > 0) & (factor < 4 * 2.0 ** -149), sign


@quiet
def underflow_abs_bound(op: str, saved, grad, **attrs) -> np.ndarray:
    a = {**DEFAULT_ATTRS[op], **attrs}
    g = np.abs(np.asarray(grad, np.float64))
    if op == "elu_backward":
        g = g * abs(a["input_scale"] * a["alpha"] * a["scale"])
    return 2.0 * g * 2.0 ** -149


# ----------------------------------------------------------------------------------------------------------------
# PyTorch counterparts (finite inputs; the attributes PyTorch supports), used by the records
# ----------------------------------------------------------------------------------------------------------------
def aten():
    return torch.ops.aten


def aten_hardsigmoid_backward(grad, saved, alpha, beta):
    assert alpha == 1.0 / 6.0 and beta == 0.5, "PyTorch only has the defaults"
    return torch.ops.aten.hardsigmoid_backward(grad, saved)


# ----------------------------------------------------------------------------------------------------------------
# per-operator knowledge (tests/refs), gathered last: the records use the helpers above
# ----------------------------------------------------------------------------------------------------------------
from refs import founding, piecewise_linear, sigmoid_family, smooth_gates  # noqa: E402

REFS = {r.op: r for group in (founding, piecewise_linear, sigmoid_family, smooth_gates) for r in group.REFS}

# Attribute values used when a test does not choose them: the spec's defaults, and the record's for required ones
# (a row operator's: its default axis).
DEFAULT_ATTRS = {op.name: {**{a.name: a.default for a in op.attrs if not a.required},
                           **(REFS[op.name].required if op.name in REFS else {})}
                 for op in SPEC.OPS}


def typical_attrs(op: str) -> dict:
    """Attributes that make a call non-trivial: the record's required and typical ones; a row reduction's axis 0,
    which neither operator's default is (on a matrix: columns, strided rows)."""
    if op in REFS:
        return {**REFS[op].required, **REFS[op].typical}
    return {"axis": 0}


def full(op: str, attrs: dict) -> dict:
    return {**DEFAULT_ATTRS[op], **attrs}


def is_transcendental(op: str, attrs: dict) -> bool:
    """Whether attrs select a form with an accuracy target rather than a bit-exact one."""
    return not REFS[op].is_exact(full(op, attrs))


def ulp_target(op: str, attrs: dict, dtype) -> int:
    """The contract's ulp target (A.2): 0 for bit-exact forms, 1 for f16/bf16, the record's 4 or 8 for f32."""
    if not is_transcendental(op, attrs):
        return 0
    return REFS[op].ulp_f32(full(op, attrs)) if dtype == torch.float32 else 1


@quiet
def reference_f64(op: str, saved: np.ndarray, grad: np.ndarray, **attrs) -> np.ndarray:
    return REFS[op].f64(np.asarray(saved, np.float64), np.asarray(grad, np.float64), **full(op, attrs))


@quiet
def reference_f32(op: str, saved: np.ndarray, grad: np.ndarray, **attrs) -> np.ndarray:
    return REFS[op].f32(np.asarray(saved, np.float32), np.asarray(grad, np.float32), **full(op, attrs))


@quiet
def expected(op: str, saved: torch.Tensor, grad: torch.Tensor, **attrs) -> torch.Tensor:
    """The contract's expected output for tensors saved/grad of one dtype: the f32-step reference rounded once
    for the bit-exact forms, the correctly rounded f64 reference for the others."""
    dtype = saved.dtype
    if is_transcendental(op, attrs):
        out = round_f64(reference_f64(op, exact(saved), exact(grad), **attrs), dtype)
    else:
        out = round_f32(reference_f32(op, as_f32(saved), as_f32(grad), **attrs), dtype)
    return out.reshape(saved.shape)


def has_torch(op: str) -> bool:
    return REFS[op].torch is not None


@quiet
def torch_reference(op: str, saved: torch.Tensor, grad: torch.Tensor, **attrs) -> torch.Tensor:
    """PyTorch's result (the record's counterpart) for finite inputs."""
    fn = REFS[op].torch
    if fn is None:
        raise ValueError(f"{op} has no PyTorch counterpart")
    return fn(saved, grad, **full(op, attrs))
