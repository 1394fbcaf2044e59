#!/usr/bin/env python3
"""Measured accuracy of operators from their OpRef records (tests/refs) alone: the maximum ulp distance to the
correctly rounded float64 reference per operator, attribute case and dtype, over

* every f16/bf16 bit pattern as the saved value against several gradients, and as the gradient against saved values
  around the operator's bounds;
* for f32, every f16 and bf16 value plus --random random bit patterns and --random normals of scale 3, 30 and 300 as
  the saved value against several gradients, and --random random bit patterns as the gradient.

Elements within the record's absolute bound (abs_bound: cancellation, exp underflow) pass whatever their ulp
distance and are counted apart; an infinite gradient where the exact derivative is positive but below 4 f32 ulps of 0
or within the absolute bound of 0 is the kernel's call (0 or inf, see tests/reference.py exp_factor_near_zero) and
is left out.

    python scripts/accuracy_refs.py [op ...] [--random N]
"""
from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import reference as R  # noqa: E402

GRADS = {
    torch.float32: [1.0, -2.5, 1e-3, 3e4, 1e30, -1e-40, math.inf],
    torch.float16: [1.0, -2.5, 1e-3, 3e4, 2.0 ** -24, -3e-6, math.inf],
    torch.bfloat16: [1.0, -2.5, 1e-3, 3e4, 1e30, -1e-39, -math.inf],
}
SAVED_FOR_GRAD_SWEEP = [-100.0, -30.0, -5.0, -1.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.75, 6.0, 30.0, 100.0,
                        math.inf, -math.inf]


def saved_values(dtype, n_random: int, seed: int = 7) -> torch.Tensor:
    if dtype != torch.float32:
        return R.all_values(dtype)
    gen = torch.Generator().manual_seed(seed)
    bits = torch.randint(-2 ** 31, 2 ** 31 - 1, (n_random,), generator=gen, dtype=torch.int64).to(torch.int32)
    normals = [torch.randn(n_random, generator=gen) * s for s in (3.0, 30.0, 300.0)]
    return torch.cat([R.all_values(torch.float16).float(), R.all_values(torch.bfloat16).float(),
                      bits.view(torch.float32), *normals])


def grad_values(dtype, n_random: int, seed: int = 8) -> torch.Tensor:
    if dtype != torch.float32:
        return R.all_values(dtype)
    gen = torch.Generator().manual_seed(seed)
    bits = torch.randint(-2 ** 31, 2 ** 31 - 1, (n_random,), generator=gen, dtype=torch.int64).to(torch.int32)
    return torch.cat([R.all_values(torch.bfloat16).float(), bits.view(torch.float32)])


def sweep(ref, dtype, n_random: int, attrs: dict):
    s = saved_values(dtype, n_random)
    g = torch.tensor(GRADS[dtype], dtype=torch.float64).to(dtype)
    gv = grad_values(dtype, n_random)
    sv = torch.tensor(SAVED_FOR_GRAD_SWEEP + list(ref.bounds(attrs)), dtype=torch.float64).to(dtype)
    saved = torch.cat([s.repeat(g.numel()), sv.repeat_interleave(gv.numel())])
    grad = torch.cat([g.repeat_interleave(s.numel()), gv.repeat(sv.numel())])
    return saved.contiguous(), grad.contiguous()


def call(op: str, saved, grad, attrs: dict):
    spec = R.SPEC.BY_NAME[op]
    ins = (saved, grad) if spec.saved_index == 0 else (grad, saved)
    values = [attrs.get(a.name, a.default) for a in spec.attrs]
    return getattr(torch.ops.actgrad, op)(*ins, *values)


@R.quiet
def measure(ref, dtype, attrs: dict, n_random: int) -> dict:
    saved, grad = sweep(ref, dtype, n_random, attrs)
    got = call(ref.op, saved, grad, attrs).reshape(-1)
    x, g = R.exact(saved), R.exact(grad)
    exact = ref.f64(x, g, **attrs)
    want = R.round_f64(exact, dtype)
    d = R.ulp_distance(got, want)
    bound = ref.abs_bound(x, g, **attrs) if ref.abs_bound is not None else np.zeros_like(x)
    err = np.abs(R.exact(got) - exact)
    in_bound = (bound > 0) & np.isfinite(exact) & (err <= bound)
    # an infinite grad where the derivative is within 4 f32 ulps of 0, or within the absolute bound of 0: 0 or inf
    # is the kernel's call
    ones = np.ones_like(g)
    derivative = np.abs(ref.f64(x, ones, **attrs))
    near_zero = np.maximum(4 * 2.0 ** -149, ref.abs_bound(x, ones, **attrs) if ref.abs_bound is not None else 0.0)
    kernel_call = np.isinf(g) & (derivative > 0) & (derivative <= near_zero)
    judged = ~in_bound & ~kernel_call
    target = R.ULP_TARGET[dtype] if dtype != torch.float32 else ref.f32_ulp
    dj = d[judged]
    finite = dj[dj != R.NAN_MISMATCH]
    worst = np.flatnonzero(judged & (d == (finite.max() if finite.size else -1)))[:1]
    return {
        "max_ulp": int(finite.max()) if finite.size else 0,
        "target": target,
        "n": int(judged.sum()),
        "n_exceeding": int((dj > target).sum()),
        "nan_mismatches": int((dj == R.NAN_MISMATCH).sum()),
        "n_abs_bound": int(in_bound.sum()),
        "n_abs_bound_failing": int(((bound > 0) & np.isfinite(exact) & (err > bound) & (d > target)).sum()),
        "worst": [(float(x[i]), float(g[i]), float(got[i]), float(exact[i])) for i in worst],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ops", nargs="*", help="op names (default: every op with a record)")
    ap.add_argument("--random", type=int, default=1_000_000, help="random f32 values per kind (default 1M)")
    args = ap.parse_args()
    import actgrad  # noqa: F401, PLC0415 - registers the ops
    ops = args.ops or list(R.REFS)
    t0 = time.time()
    print(f"{'operator':<20}{'attrs':<18}{'dtype':<10}{'max ulp':>8}{'target':>7}{'over':>6}{'NaN':>5}"
          f"{'in abs bound':>14}{'elements':>11}  worst (saved, grad, got, exact)")
    status = 0
    for op in ops:
        ref = R.REFS[op]
        for attrs in ref.cases:
            for dtype in (torch.float32, torch.float16, torch.bfloat16):
                st = measure(ref, dtype, attrs, args.random)
                bad = st["n_exceeding"] or st["nan_mismatches"] or st["n_abs_bound_failing"]
                status |= bool(bad)
                label = ",".join(f"{k}={v}" for k, v in attrs.items()) or "-"
                print(f"{op:<20}{label:<18}{str(dtype)[6:]:<10}{st['max_ulp']:>8}{st['target']:>7}"
                      f"{st['n_exceeding']:>6}{st['nan_mismatches']:>5}{st['n_abs_bound']:>14}{st['n']:>11}  "
                      f"{st['worst']}", flush=True)
    print(f"{time.time() - t0:.0f} s")
    return status


if __name__ == "__main__":
    sys.exit(main())
