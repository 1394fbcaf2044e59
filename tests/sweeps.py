"""The exhaustive sweeps shared by tests/test_op_values.py, tests/test_accuracy.py and scripts/accuracy.py.

For dtype f16 / bf16 the saved tensor takes every one of the 65,536 bit patterns of the dtype, for f32 every f16
and every bf16 value plus a random f32 sample (random bit patterns and random normals); each against several
gradient values (GRADS). A second half swaps the roles: every value as the gradient, against a few saved values
around the op's bounds (SAVED_FOR_GRAD_SWEEP).
"""
from __future__ import annotations

import functools
import math

import numpy as np
import torch

import harness as H
import reference as R

from refs.founding import SELU_ALPHA, SELU_SCALE  # noqa: F401 - the tests use them through this module

GRADS = {
    torch.float32: [1.0, -2.5, 1e-3, 3e4, 1e30, -1e-40],  # -1e-40: f32 subnormal
    torch.float16: [1.0, -2.5, 1e-3, 3e4, 2.0 ** -24, -3e-6],  # 2**-24 smallest, -3e-6 another subnormal
    torch.bfloat16: [1.0, -2.5, 1e-3, 3e4, 1e30, -1e-39],  # -1e-39: bf16 subnormal
}

# (attrs) per op, from its record (tests/refs); ids are generated from them
CASES = {op: R.REFS[op].cases for op in R.ELEMENTWISE_OP_NAMES}

SAVED_FOR_GRAD_SWEEP = [-5.0, -3.0, -1.5, -1.0, -0.5, -0.0, 0.0, 0.25, 1.0, 2.75, 3.0, 6.0, 30.0, -100.0,
                        math.inf, -math.inf]


def case_id(attrs: dict) -> str:
    if not attrs:
        return "defaults"
    return ",".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in attrs.items())


def all_cases():
    for op, cases in CASES.items():
        for i, attrs in enumerate(cases):
            yield op, i, attrs


def saved_values(dtype, n_random_f32: int = 50_000, seed: int = 1234) -> torch.Tensor:
    if dtype != torch.float32:
        return R.all_values(dtype)
    g = torch.Generator().manual_seed(seed)
    rand_bits = torch.randint(-2 ** 31, 2 ** 31 - 1, (n_random_f32,), generator=g, dtype=torch.int64)
    rand_bits = rand_bits.to(torch.int32).view(torch.float32)
    return torch.cat([R.all_values(torch.float16).float(), R.all_values(torch.bfloat16).float(), rand_bits,
                      torch.randn(n_random_f32, generator=g) * 10, torch.randn(n_random_f32, generator=g) * 100])


def grad_values(dtype) -> torch.Tensor:
    if dtype != torch.float32:
        return R.all_values(dtype)
    return R.all_values(torch.bfloat16).float()  # spans the f32 exponent range


@functools.lru_cache(maxsize=None)
def inputs(dtype, n_random_f32: int = 50_000):
    """(saved, grad) of the full sweep of dtype (cached: the same tensors for every op)."""
    s = saved_values(dtype, n_random_f32)
    g = torch.tensor(GRADS[dtype], dtype=torch.float64).to(dtype)
    saved1, grad1 = s.repeat(g.numel()), g.repeat_interleave(s.numel())
    gv = grad_values(dtype)
    sv = torch.tensor(SAVED_FOR_GRAD_SWEEP, dtype=torch.float64).to(dtype)
    saved2, grad2 = sv.repeat_interleave(gv.numel()), gv.repeat(sv.numel())
    return torch.cat([saved1, saved2]).contiguous(), torch.cat([grad1, grad2]).contiguous()


@R.quiet
def measure(op: str, got: torch.Tensor, saved: torch.Tensor, grad: torch.Tensor, attrs: dict) -> dict:
    """Statistics without assertions (for scripts/accuracy.py and the report): max ulp distance to the contract's
    reference where the ulp target applies (all finite-input elements for the bit-exact forms), and the number of
    elements violating the contract."""
    a = H.full_attrs(op, attrs)
    dtype = saved.dtype
    x, g = R.exact(saved).reshape(-1), R.exact(grad).reshape(-1)
    got = got.reshape(-1)
    under = np.zeros(x.shape, bool)
    if not R.is_transcendental(op, a):
        d = R.ulp_distance(got, R.expected(op, saved.reshape(-1), grad.reshape(-1), **a))
        tgt, bad = np.ones(x.shape, bool), d > 0
    elif R.REFS[op].check is not None:  # the founding exp forms: their own regions
        d = R.ulp_distance(got, R.round_f64(R.reference_f64(op, x, g, **a), dtype))
        tgt, under, _ = R.transcendental_regions(op, x, g, **a)
        bad = tgt & (d > R.ulp_target(op, a, dtype))
    else:
        r = H.bounded_regions(op, got, saved, grad, a)
        d, tgt, bad = r["ulp"], r["target"], ~r["ok"]
    dt = d[tgt]
    finite_dt = dt[dt != R.NAN_MISMATCH]
    return {
        "max_ulp": int(finite_dt.max()) if finite_dt.size else 0,
        "nan_mismatches": int((dt == R.NAN_MISMATCH).sum()),
        "n_target": int(tgt.sum()),
        "n_exceeding": int(bad.sum()),
        "n_underflow_region": int(under.sum()),
        "max_ulp_underflow_region": int(d[under & (d != R.NAN_MISMATCH)].max()) if under.any() else 0,
    }


def run(op: str, dtype, attrs: dict, n_random_f32: int = 50_000):
    saved, grad = inputs(dtype, n_random_f32)
    got = H.call(op, saved, grad, **attrs)
    return saved, grad, got


@functools.lru_cache(maxsize=None)
def checked(op: str, dtype, case_index: int) -> dict:
    """Run one sweep case and assert the contract (raises AssertionError); returns the statistics. Cached so that
    test_accuracy and test_op_values share the launches in one pytest process."""
    attrs = CASES[op][case_index]
    saved, grad, got = run(op, dtype, attrs)
    what = f"{op} {H.DTYPE_IDS[dtype]} {case_id(attrs)}"
    return H.check_op(op, got, saved, grad, attrs, what)  # raises unless within the contract


# ------------------------------------------------------------------------------------------------ accuracy report
def label_of(op: str, attrs: dict) -> str:
    """The report row of a case: an op whose use_dst forms have different contracts is split into both."""
    a = H.full_attrs(op, attrs)
    if "use_dst" in a and any(R.is_transcendental(op, c) for c in CASES[op]):
        return f"{op}({'use_dst' if a['use_dst'] else 'src'})"
    return op


def groups():
    """Report rows: the ops, those with two contracts (use_dst forms) split."""
    rows = {}
    for op, i, attrs in all_cases():
        rows.setdefault(label_of(op, attrs), []).append((op, i))
    return rows


REPORT: dict = {}  # (label, dtype) -> dict(max_ulp, target, cases)


def target_of(label: str, dtype) -> int:
    op, i = groups()[label][0]
    return R.ulp_target(op, CASES[op][i], dtype)


def report_lines():
    labels = list(groups())
    dts = [torch.float32, torch.float16, torch.bfloat16]
    head = f"{'operator':<24}" + "".join(f"{H.DTYPE_IDS[d] + ' max/target':>18}" for d in dts)
    lines = [head]
    for label in labels:
        cells = []
        for d in dts:
            r = REPORT.get((label, d))
            cells.append(f"{'-' if r is None else str(r['max_ulp']) + ' / ' + str(r['target']):>18}")
        lines.append(f"{label:<24}" + "".join(cells))
    return lines
